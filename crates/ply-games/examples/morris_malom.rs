//! Nine Men's Morris checked position by position against Malom's own
//! databases (Gévay and Danner): every entry of the moving-phase sectors
//! `std_3_3_0_0.sec2`, `std_3_4_0_0.sec2` and `std_4_3_0_0.sec2` in
//! MALOM_DIR is decoded to its position by Malom's unhash (hash.cpp:
//! `Hash::inv_hash`), its symmetric duplicates (`Sym` entries) skipped, and
//! its value and depth compared with ply's cell in the shards in DB_DIR.
//! Prints the positions compared and every mismatch; exits 1 on any.
//!
//! `cargo run --release -p ply-games --example morris_malom -- MALOM_DIR DB_DIR`
//!
//! Malom's format, from its source (github.com/ggevay/malom):
//! - sector `std_W_B_0_0`: W stones of the side to move (Malom's White,
//!   bits 0..24 of a board) against B;
//! - index `h = f * C(24 - W, B) + g`: `f` numbers the orbits of W-point
//!   sets under the 16 board symmetries in the order of their least member
//!   (as a number), which stands for the orbit; `g` is the rank, in
//!   increasing order, of the B-point set among the 24 - W points the
//!   mover leaves empty (`uncollapse`);
//! - `.sec2`: a 64-byte header, 3 bytes an entry (12-bit signed `key1`, low,
//!   and `key2`, high; `key2 == -2048` sends to a trailing map of (index,
//!   key2) pairs), then that map;
//! - an entry with `key1 == 0` is a draw if `key2 >= 0`, a symmetric
//!   duplicate if not; else `key1 + sval(sector)` (from `std.secval`) is the
//!   win value, the loss value, or a draw's sector value, and `key2` is the
//!   depth in plies.
//! - points: three rings of eight (outer 0..8, middle 8..16, inner
//!   16..24), each ring in order round the square, even points the
//!   midpoints joined across rings (movegen.cpp's `millpos`).

use ply_core::tier::{Plan, Shards};
use ply_core::{Cell, Game, NamedTiers, Outcome, Value};
use ply_games::Morris;
use ply_games::morris::{Geometry, Stones, point_name};
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Malom's points, ring by ring, as ply's point names: each ring from its
/// top midpoint round clockwise.
const MALOM_POINTS: [&str; 24] = [
    "d7", "g7", "g4", "g1", "d1", "a1", "a4", "a7", // outer
    "d6", "f6", "f4", "f2", "d2", "b2", "b4", "b6", // middle
    "d5", "e5", "e4", "e3", "d3", "c3", "c4", "c5", // inner
];

/// Malom's 16 mills (movegen.cpp, `millpos` for the standard game).
const MALOM_MILLS: [u32; 16] = [
    14, 56, 224, 131, 3584, 14336, 57344, 33536, 917504, 3670016, 14680064, 8585216, 65793, 263172,
    1052688, 4210752,
];

/// The sectors checked: the mover's stones, the other's.
const SECTORS: [(u32, u32); 3] = [(3, 3), (3, 4), (4, 3)];

/// Malom's point `i` as ply's point, for every `i`.
fn point_map() -> Result<[u8; 24], String> {
    let mut map = [0u8; 24];
    for (i, name) in MALOM_POINTS.iter().enumerate() {
        map[i] = (0..24u8)
            .find(|&p| point_name(p) == *name)
            .ok_or_else(|| format!("ply has no point {name}"))?;
    }
    let ply_mills = Geometry::get().mills;
    for mill in MALOM_MILLS {
        if !ply_mills.contains(&to_ply(&map, mill)) {
            return Err(format!("Malom's mill {mill:#x} is no mill of ply's"));
        }
    }
    Ok(map)
}

/// A set of Malom's points as ply's.
fn to_ply(map: &[u8; 24], set: u32) -> u32 {
    (0..24)
        .filter(|i| set >> i & 1 == 1)
        .fold(0, |s, i| s | 1 << map[i])
}

/// The next larger set of as many points (Malom's `next_choose`).
fn next_choose(x: u32) -> u32 {
    let c = x & x.wrapping_neg();
    let r = x + c;
    (((r ^ x) >> 2) / c) | r
}

/// The sets of `k` of the first `n` points, increasing.
fn subsets(k: u32, n: u32) -> Vec<u32> {
    let mut all = Vec::new();
    let mut set = (1u32 << k) - 1;
    while set < 1 << n {
        all.push(set);
        set = next_choose(set);
    }
    all
}

/// The least member (as a number, in Malom's points) of each orbit of
/// `w`-point sets, increasing: Malom's `f_inv_lookup`.
fn orbit_leasts(map: &[u8; 24], w: u32) -> Vec<u32> {
    let perms = &Geometry::get().perms;
    let ply_to_malom: BTreeMap<u8, u32> = (0..24).map(|i| (map[i], i as u32)).collect();
    let image = |perm: &[u8; 24], set: u32| {
        (0..24)
            .filter(|i| set >> i & 1 == 1)
            .map(|i| ply_to_malom[&perm[usize::from(map[i])]])
            .fold(0u32, |s, i| s | 1 << i)
    };
    subsets(w, 24)
        .into_iter()
        .filter(|&set| perms.iter().all(|perm| image(perm, set) >= set))
        .collect()
}

/// `squeezed`'s points spread over the points `taken` leaves empty
/// (Malom's `uncollapse`).
fn spread(squeezed: u32, taken: u32) -> u32 {
    let (mut out, mut j) = (0, 0);
    for i in 0..24 {
        if taken >> i & 1 == 0 {
            if squeezed >> j & 1 == 1 {
                out |= 1 << i;
            }
            j += 1;
        }
    }
    out
}

/// An entry's meaning.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Entry {
    Sym,
    Draw,
    Win(u32),
    Loss(u32),
}

/// The win and loss values and each sector's value, from `std.secval`.
struct SecVals {
    win: i32,
    loss: i32,
    sectors: BTreeMap<(u32, u32), i32>,
}

fn read_secvals(path: &Path) -> Result<SecVals, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let bad = |line: &str| format!("{}: unexpected line '{line}'", path.display());
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let mut value = |key: &str| -> Result<i32, String> {
        let line = lines.next().unwrap_or("");
        line.strip_prefix(key)
            .and_then(|v| v.trim().parse().ok())
            .ok_or_else(|| bad(line))
    };
    let loss = value("virt_loss_val:")?;
    let win = value("virt_win_val:")?;
    let _count = value("")?;
    let mut sectors = BTreeMap::new();
    for line in lines {
        let n: Vec<i32> = line
            .split_whitespace()
            .map(|f| f.parse().map_err(|_| bad(line)))
            .collect::<Result<_, _>>()?;
        let [w, b, wf, bf, v] = n[..] else {
            return Err(bad(line));
        };
        if wf == 0 && bf == 0 {
            sectors.insert((w as u32, b as u32), v);
        }
    }
    Ok(SecVals { win, loss, sectors })
}

/// A 12-bit field, signed.
fn signed12(v: u32) -> i32 {
    if v & 0x800 != 0 {
        v as i32 - 0x1000
    } else {
        v as i32
    }
}

/// The `len` entries of a `.sec2` file, read with the sector value `sval`.
fn read_sec2(path: &Path, len: usize, sval: i32, vals: &SecVals) -> Result<Vec<Entry>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let bad = |why: String| format!("{}: {why}", path.display());
    let body = 64 + 3 * len;
    let int = |at: usize| -> Result<i32, String> {
        bytes
            .get(at..at + 4)
            .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .ok_or_else(|| bad(format!("ends at {} bytes", bytes.len())))
    };
    if (int(0)?, int(4)?) != (2, 3) {
        return Err(bad("not a .sec2 file of version 2, 3 bytes an entry".into()));
    }
    let map_len = usize::try_from(int(body)?).map_err(|_| bad("negative map size".into()))?;
    if bytes.len() != body + 4 + 8 * map_len {
        return Err(bad(format!(
            "{} bytes, not the {} of {len} entries and a map of {map_len}",
            bytes.len(),
            body + 4 + 8 * map_len
        )));
    }
    let mut map = BTreeMap::new();
    for k in 0..map_len {
        map.insert(int(body + 4 + 8 * k)?, int(body + 8 + 8 * k)?);
    }
    (0..len)
        .map(|i| {
            let b = &bytes[64 + 3 * i..67 + 3 * i];
            let a = u32::from(b[0]) | u32::from(b[1]) << 8 | u32::from(b[2]) << 16;
            let key1 = signed12(a & 0xFFF);
            let mut key2 = signed12(a >> 12);
            if key2 == -2048 {
                key2 = *map
                    .get(&(i as i32))
                    .ok_or_else(|| bad(format!("entry {i} sends to a map without it")))?;
            }
            let depth = || u32::try_from(key2).map_err(|_| bad(format!("entry {i}: depth {key2}")));
            Ok(if key1 == 0 {
                if key2 < 0 { Entry::Sym } else { Entry::Draw }
            } else if key1 + sval == vals.win {
                Entry::Win(depth()?)
            } else if key1 + sval == vals.loss {
                Entry::Loss(depth()?)
            } else {
                Entry::Draw
            })
        })
        .collect()
}

/// ply's outcome in Malom's terms.
fn as_entry(outcome: Outcome) -> Entry {
    match (outcome.value, outcome.remoteness) {
        (Value::Win, Some(r)) => Entry::Win(r),
        (Value::Lose, Some(r)) => Entry::Loss(r),
        _ => Entry::Draw,
    }
}

fn run(malom: &Path, db: &Path) -> Result<bool, String> {
    let map = point_map()?;
    let vals = read_secvals(&malom.join("std.secval"))?;
    let game = Morris::moving_phase(9);
    let plan = Plan::new(&game).map_err(|e| e.to_string())?;
    let shards = Shards::new(db, ply_core::db::Expect::of(&game));
    let mut loaded = BTreeMap::new();
    let (mut total, mut wrong) = (0u64, 0u64);
    for (w, b) in SECTORS {
        let name = format!("std_{w}_{b}_0_0");
        let sval = *vals
            .sectors
            .get(&(w, b))
            .ok_or_else(|| format!("std.secval lists no sector {w}-{b}"))?;
        let leasts = orbit_leasts(&map, w);
        let others = subsets(b, 24 - w);
        let entries = read_sec2(
            &malom.join(format!("{name}.sec2")),
            leasts.len() * others.len(),
            sval,
            &vals,
        )?;
        let (mut compared, mut syms, mut mismatches) = (0u64, 0u64, 0u64);
        let mut keys = HashSet::new();
        for (h, &entry) in entries.iter().enumerate() {
            if entry == Entry::Sym {
                syms += 1;
                continue;
            }
            let mover = leasts[h / others.len()];
            let other = spread(others[h % others.len()], mover);
            let position =
                Stones::from_sides(to_ply(&map, mover), to_ply(&map, other), 0, 0, false);
            let tier = game.tier_of(&position);
            let step = plan.step(tier).ok_or_else(|| {
                format!(
                    "{name} entry {h}: tier {} is not planned",
                    game.tier_name(tier)
                )
            })?;
            let index = game.tier_rank(tier, &position);
            let mut cell_of = |position: &Stones| -> Result<Cell, String> {
                let tier = game.tier_of(position);
                let step = plan
                    .step(tier)
                    .ok_or_else(|| format!("tier {} is not planned", game.tier_name(tier)))?;
                if !loaded.contains_key(&step.name) {
                    let cells = shards
                        .load(step)
                        .map_err(|e| format!("{}: {e}", step.name))?;
                    loaded.insert(step.name.clone(), cells);
                }
                Ok(loaded[&step.name].cell(game.tier_rank(tier, position) as usize))
            };
            let stored = cell_of(&position)?;
            // A shard leaving out a side's remoteness: found again from
            // the children's cells, as `ply solve` does.
            let ply = ply_core::derive::complete(&game, &position, stored, cell_of)?
                .map(as_entry)
                .ok_or_else(|| format!("{name} entry {h}: ply has no value"))?;
            if !keys.insert((step.name.clone(), index)) {
                return Err(format!(
                    "{name} entry {h}: two entries are one ply position"
                ));
            }
            compared += 1;
            if ply != entry {
                mismatches += 1;
                if mismatches <= 20 {
                    println!(
                        "MISMATCH {name} entry {h} {}: Malom {entry:?}, ply {ply:?}",
                        game.format_position(&position)
                    );
                }
            }
        }
        println!(
            "{name}: {} entries, {syms} symmetric duplicates, {compared} positions compared, {mismatches} mismatches",
            entries.len()
        );
        total += compared;
        wrong += mismatches;
    }
    println!("total: {total} positions compared, {wrong} mismatches");
    Ok(wrong == 0)
}

fn main() -> ExitCode {
    let args: Vec<PathBuf> = std::env::args().skip(1).map(PathBuf::from).collect();
    let [malom, db] = &args[..] else {
        eprintln!(
            "usage: morris_malom MALOM_DIR DB_DIR (Malom's std.secval and std_W_B_0_0.sec2, ply's morris shards)"
        );
        return ExitCode::from(2);
    };
    match run(malom, db) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(why) => {
            eprintln!("morris_malom: {why}");
            ExitCode::from(2)
        }
    }
}
