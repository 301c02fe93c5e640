//! Everything this crate knows of timely's insides, in one place: how its
//! communication is built over sockets [`crate::team`] connected, and how
//! its network threads fail. A newer timely may change either; the tests
//! here pin the version this was written for (0.26.1) to the one in
//! `Cargo.lock`, and make timely really fail to check that
//! the failure is still read right.
//!
//! Once running, timely's network threads (named `timely:send-I` and
//! `timely:recv-I`, `I` the peer process) panic when a peer's socket
//! closes or fails, with a message starting `timely communication error: `;
//! the workers of this process then panic in turn, and dropping timely's
//! guards panics once more (`Send thread panic`, `Recv thread panic`). A
//! panic hook ([`watch_peers`]) keeps those panics off stderr and records
//! the first one with the peer its thread names (see the team's losses),
//! so the error says which process was lost.

use crate::team::{self, Links, TeamError};
use std::sync::{Arc, Once};
use timely::communication::allocator::zero_copy::bytes_slab::BytesRefill;
use timely::communication::allocator::zero_copy::initialize::initialize_networking_from_sockets;
use timely::communication::allocator::{GenericBuilder, Process};

/// Builders of the workers' communication, and what must live while they
/// run (timely's guard of its network threads, the team's heartbeat).
pub(super) type Communication = (Vec<GenericBuilder>, Box<dyn std::any::Any + Send>);

/// The communication of `threads` workers in this process alone.
pub(super) fn threads(threads: usize) -> Result<Communication, String> {
    timely::CommunicationConfig::Process(threads).try_build()
}

/// The communication of `threads` workers in process `process`, over the
/// data sockets of `links` (`None` at `process`), which this hands to
/// timely. `keep` lives as long as timely's network threads.
pub(super) fn over_sockets(
    links: Links,
    process: usize,
    threads: usize,
    keep: impl Send + 'static,
) -> Result<Communication, TeamError> {
    let refill = BytesRefill {
        logic: Arc::new(|size| {
            Box::new(vec![0_u8; size]) as Box<dyn std::ops::DerefMut<Target = [u8]>>
        }),
        limit: None,
    };
    let (builders, guard) = initialize_networking_from_sockets::<_, Process>(
        links.data,
        process,
        threads,
        refill,
        Arc::new(|_| None),
    )
    .map_err(|error| TeamError::Io {
        what: "cannot hand the connections to timely".into(),
        error,
    })?;
    Ok((
        builders.into_iter().map(GenericBuilder::ZeroCopy).collect(),
        Box::new((guard, keep)),
    ))
}

/// What a panic says about the network, read by [`classify`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Panic {
    /// A network thread of timely failed on a peer's socket: the peer
    /// (when the thread's name gives it), and what failed.
    Network {
        /// The peer process whose socket failed.
        peer: Option<usize>,
        /// What failed, as timely says it.
        why: String,
    },
    /// A panic of timely's threads that says nothing new.
    Quiet,
    /// Dropping timely's guards after its network thread failed.
    GuardDrop,
    /// A panic that cannot unwind, about to abort the process.
    Abort,
    /// Any other panic: not timely's.
    Other,
}

/// Reads a panic on the thread named `thread` with `message`.
pub(super) fn classify(thread: Option<&str>, message: &str) -> Panic {
    if message.contains("cannot unwind") {
        return Panic::Abort;
    }
    if message.starts_with("Send thread panic") || message.starts_with("Recv thread panic") {
        return Panic::GuardDrop;
    }
    let Some(name) = thread.filter(|n| n.starts_with("timely:")) else {
        return Panic::Other;
    };
    match message.strip_prefix("timely communication error: ") {
        Some(why) => Panic::Network {
            peer: name
                .strip_prefix("timely:recv-")
                .or_else(|| name.strip_prefix("timely:send-"))
                .and_then(|n| n.parse().ok()),
            why: why.to_string(),
        },
        None => Panic::Quiet,
    }
}

/// Installs, once per process, a panic hook that keeps the panics of
/// timely's threads off stderr and records the first network failure;
/// other panics go to the hook that was there before.
pub(super) fn watch_peers() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let thread = std::thread::current();
            let message = info
                .payload()
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| info.payload().downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            match classify(thread.name(), &message) {
                // The process aborts right after this hook: say first what
                // was lost, so the clear error is not lost too.
                Panic::Abort => match team::lost_now() {
                    Some(lost) => eprintln!("ply: {lost}"),
                    None => previous(info),
                },
                // The failure is already recorded: say nothing.
                Panic::GuardDrop if team::seen_any() => {}
                Panic::GuardDrop | Panic::Other => previous(info),
                Panic::Network { peer, why } => team::record(peer, why),
                Panic::Quiet => {}
            }
        }));
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::team::Team;
    use std::time::{Duration, Instant};
    use timely::communication::allocator::AllocateBuilder;

    /// The version of `timely_communication` (and `timely`) whose thread
    /// names and panic messages [`classify`] reads.
    const TIMELY_COMMUNICATION: &str = "0.26.1";

    /// The version of `name` in the workspace's `Cargo.lock`.
    fn locked_version(name: &str) -> String {
        let lock = concat!(env!("CARGO_MANIFEST_DIR"), "/../../Cargo.lock");
        let text = std::fs::read_to_string(lock).expect("the workspace's Cargo.lock");
        let entry = format!("name = \"{name}\"\n");
        let at = text
            .find(&entry)
            .unwrap_or_else(|| panic!("{name} in Cargo.lock"));
        let rest = &text[at + entry.len()..];
        let line = rest.lines().next().expect("a version line");
        line.strip_prefix("version = \"")
            .and_then(|v| v.strip_suffix('"'))
            .unwrap_or_else(|| panic!("a version for {name}: {line}"))
            .to_string()
    }

    #[test]
    fn the_adapter_is_for_the_timely_in_the_lock_file() {
        assert_eq!(
            locked_version("timely_communication"),
            TIMELY_COMMUNICATION,
            "timely changed: check its thread names and panic messages against \
             `classify`, then update TIMELY_COMMUNICATION"
        );
        assert_eq!(locked_version("timely"), TIMELY_COMMUNICATION);
    }

    #[test]
    fn panics_are_told_apart() {
        let failed = classify(
            Some("timely:recv-2"),
            "timely communication error: reading data: socket closed",
        );
        assert_eq!(
            failed,
            Panic::Network {
                peer: Some(2),
                why: "reading data: socket closed".into()
            }
        );
        assert_eq!(
            classify(Some("timely:send-x"), "timely communication error: w"),
            Panic::Network {
                peer: None,
                why: "w".into()
            }
        );
        assert_eq!(classify(Some("timely:recv-0"), "other"), Panic::Quiet);
        assert_eq!(
            classify(Some("main"), "Recv thread panic"),
            Panic::GuardDrop
        );
        assert_eq!(classify(Some("worker"), "boom"), Panic::Other);
        assert_eq!(
            classify(None, "panic in a function that cannot unwind"),
            Panic::Abort
        );
    }

    /// timely's own network threads, over sockets the team connected, see
    /// their peer end without timely's clean shutdown: the hook names that
    /// peer and its host from what this timely really panics with.
    #[test]
    fn a_peer_closing_its_socket_under_timely_is_named() {
        watch_peers();
        let hosts = team::free_hosts(2);
        let timeout = Duration::from_secs(30);
        let deadline = Instant::now() + Duration::from_secs(20);
        let peer = Team::on_hosts(hosts.clone(), 1, timeout).unwrap();
        let other = std::thread::spawn(move || team::connect(&peer, 7, deadline));
        let me = Team::on_hosts(hosts.clone(), 0, timeout).unwrap();
        let links = team::connect(&me, 7, deadline).expect("connected");
        let peer_links = other.join().expect("no panic").expect("connected");
        let (builders, guard) = over_sockets(links, 0, 1, ()).expect("timely's threads");
        // Building the allocator hands timely's network threads their
        // queues; dropping it ends this side's sending cleanly.
        drop(builders.into_iter().map(|b| b.build()).collect::<Vec<_>>());
        // The peer ends without timely's clean shutdown, as if killed.
        drop(peer_links);
        let until = Instant::now() + Duration::from_secs(20);
        let lost = loop {
            if let Some(lost) = team::lost() {
                break lost;
            }
            assert!(Instant::now() < until, "timely's failure was never seen");
            std::thread::sleep(Duration::from_millis(20));
        };
        let TeamError::Lost { process, host, why } = &lost else {
            panic!("not a lost peer: {lost}");
        };
        assert_eq!((*process, host.as_deref()), (1, Some(hosts[1].as_str())));
        // What timely 0.26.1 says its network thread was doing (its
        // sender, ending cleanly here, may find the peer gone as it shuts
        // its half of the socket).
        let contexts = [
            "reading data",
            "reading EOF",
            "writing data",
            "flushing writer",
            "shutting down writer",
        ];
        assert!(contexts.iter().any(|c| why.starts_with(c)), "{lost}");
        // Joining timely's failed threads panics; the hook keeps it quiet.
        let joined = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(guard)));
        assert!(
            joined.is_err(),
            "timely's failed network thread is reported on join"
        );
    }
}
