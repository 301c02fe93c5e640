// A plain retrograde pass with a stored reverse graph, single-threaded: the
// C++ baseline the retro bench measures ply's Yehr solve against. It knows
// no rules: it reads a game's move graph, exported by the bench, builds the
// reverse graph (offsets and one array of parents), counts undecided
// children per position and decides positions from a FIFO queue, in order
// of remoteness, exactly like the bench's Rust baseline.
//
// Usage: retro_plain GRAPH OUT
// GRAPH (little-endian): u64 n, u64 m, then n bytes of kind (0 ordinary,
// 1 win, 2 lose, 3 tie, 4 draw: primitive values; 5 no position), n u32
// counts of distinct children, m u32 children in index order.
// OUT: n bytes of value (0 unknown, 1 win, 2 lose, 3 tie, 4 draw), then n
// u16 remoteness. Prints the solve time (reverse graph and queue, not the
// file reading) in nanoseconds on stdout.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

int main(int argc, char **argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: retro_plain GRAPH OUT\n");
        return 2;
    }
    std::FILE *in = std::fopen(argv[1], "rb");
    if (!in) return 1;
    uint64_t n = 0, m = 0;
    if (std::fread(&n, 8, 1, in) != 1 || std::fread(&m, 8, 1, in) != 1) return 1;
    std::vector<uint8_t> kind(n);
    std::vector<uint32_t> count(n), children(m);
    if (std::fread(kind.data(), 1, n, in) != n || std::fread(count.data(), 4, n, in) != n ||
        std::fread(children.data(), 4, m, in) != m)
        return 1;
    std::fclose(in);

    auto start = std::chrono::steady_clock::now();
    // The reverse graph: in-degrees, offsets, then parents.
    std::vector<uint32_t> offset(n + 1, 0);
    for (uint64_t e = 0; e < m; e++) offset[children[e] + 1]++;
    for (uint64_t i = 0; i < n; i++) offset[i + 1] += offset[i];
    std::vector<uint32_t> parents(m), place(offset.begin(), offset.end() - 1);
    uint64_t e = 0;
    for (uint64_t p = 0; p < n; p++)
        for (uint32_t k = 0; k < count[p]; k++, e++) parents[place[children[e]]++] = (uint32_t)p;

    std::vector<uint8_t> value(n, 0);
    std::vector<uint16_t> remoteness(n, 0);
    std::vector<uint32_t> remaining(count);
    std::vector<uint32_t> queue;
    queue.reserve(n);
    for (uint64_t i = 0; i < n; i++) {
        if (kind[i] >= 1 && kind[i] <= 4) {
            value[i] = kind[i];
            queue.push_back((uint32_t)i);
        } else if (kind[i] == 0 && count[i] == 0) {
            value[i] = 2;
            queue.push_back((uint32_t)i);
        }
    }
    for (size_t head = 0; head < queue.size(); head++) {
        uint32_t child = queue[head];
        uint8_t v = value[child];
        uint16_t next = remoteness[child] + 1;
        for (uint32_t k = offset[child]; k < offset[child + 1]; k++) {
            uint32_t parent = parents[k];
            if (value[parent] != 0) continue;
            if (v == 2) {
                value[parent] = 1;
                remoteness[parent] = next;
                queue.push_back(parent);
            } else if (--remaining[parent] == 0) {
                value[parent] = 2;
                remoteness[parent] = next;
                queue.push_back(parent);
            }
        }
    }
    for (uint64_t i = 0; i < n; i++)
        if (value[i] == 0 && remaining[i] > 0) value[i] = 4;
    auto elapsed = std::chrono::steady_clock::now() - start;

    std::FILE *out = std::fopen(argv[2], "wb");
    if (!out) return 1;
    std::fwrite(value.data(), 1, n, out);
    std::fwrite(remoteness.data(), 2, n, out);
    std::fclose(out);
    std::printf("%lld\n",
                (long long)std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count());
    return 0;
}
