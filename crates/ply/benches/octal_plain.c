/* The plain O(n^2) mex loop for an octal game, single-threaded: the C
   baseline the octal bench measures ply against. Usage:
   octal_plain CODE UP_TO  (e.g. octal_plain 0.007 131072)
   Writes G(0..=UP_TO) to stdout as little-endian 16-bit values. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: octal_plain CODE UP_TO\n");
        return 2;
    }
    const char *code = argv[1];
    const char *point = strchr(code, '.');
    if (!point) {
        fprintf(stderr, "bad code\n");
        return 2;
    }
    int digits[64];
    int k = 0;
    digits[k++] = point == code ? 0 : atoi(code) & 7;
    for (const char *p = point + 1; *p && k < 64; p++) digits[k++] = *p - '0';
    long up_to = atol(argv[2]);
    unsigned short *g = calloc(up_to + 1, sizeof *g);
    unsigned char *seen = calloc(65537, 1);
    if (!g || !seen) return 1;
    /* Every option is below `width`, a power of two above every value. */
    unsigned width = 1;
    for (long n = 1; n <= up_to; n++) {
        memset(seen, 0, width + 1);
        for (int i = 0; i < k; i++) {
            int d = digits[i];
            if (i > 0 && (d & 1) && n == i) seen[0] = 1;
            if (i > 0 && (d & 2) && n > i) seen[g[n - i]] = 1;
            if ((d & 4) && n >= i + 2) {
                long rest = n - i;
                for (long a = 1; a <= rest / 2; a++) seen[g[a] ^ g[rest - a]] = 1;
            }
        }
        unsigned short m = 0;
        while (seen[m]) m++;
        g[n] = m;
        while (width <= m) width <<= 1;
    }
    fwrite(g, sizeof *g, up_to + 1, stdout);
    return 0;
}
