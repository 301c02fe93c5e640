//! Which process of a team solves which tier, when several processes build
//! one game's tiers together: the same answer in every
//! process, from the plan alone.
//!
//! Tiers of one height never depend on each other (a child is always
//! lower), so each height's tiers are dealt out on their own: the largest
//! first, each to the process with the least work of that height so far
//! (ties to the least work overall, then to the lowest index). The
//! processes then solve their tiers of one height at the same time.

use super::plan::Plan;

/// The process each step of `plan` is dealt to, by the step's place in
/// [`Plan::steps`], among `processes` processes (at least one).
pub fn deal<T>(plan: &Plan<T>, processes: usize) -> Vec<usize> {
    let processes = processes.max(1);
    let mut owner = vec![0; plan.steps.len()];
    let mut total = vec![0u64; processes];
    let mut heights: Vec<u32> = plan.steps.iter().map(|s| s.height).collect();
    heights.sort_unstable();
    heights.dedup();
    for height in heights {
        let mut level: Vec<usize> = (0..plan.steps.len())
            .filter(|&i| plan.steps[i].height == height)
            .collect();
        level.sort_by_key(|&i| (std::cmp::Reverse(plan.steps[i].size()), i));
        let mut here = vec![0u64; processes];
        for i in level {
            let to = (0..processes)
                .min_by_key(|&p| (here[p], total[p], p))
                .unwrap_or(0);
            owner[i] = to;
            // One more than the size, so that empty tiers are spread too.
            here[to] += plan.steps[i].size() + 1;
            total[to] += plan.steps[i].size() + 1;
        }
    }
    owner
}

/// The steps dealt to `process`, in the order it solves them: by height,
/// then by their place in the plan (children are always lower, so this is
/// children first).
pub fn order<T>(plan: &Plan<T>, owners: &[usize], process: usize) -> Vec<usize> {
    let mut mine: Vec<usize> = (0..plan.steps.len())
        .filter(|&i| owners[i] == process)
        .collect();
    mine.sort_by_key(|&i| (plan.steps[i].height, i));
    mine
}
