//! A cluster of hosts on one machine, made of Linux network namespaces:
//! each host a namespace with one veth link to a bridge in a namespace of
//! its own (the switch), an address in 198.18.0.0/24 (the range kept for
//! benchmark tests) and no default route, so no packet leaves the machine.
//! Nothing is put in the root namespace. [`Netns`] deletes what it made
//! when dropped, also when the test fails.
//!
//! Making namespaces needs root and `ip` (iproute2). A test that cannot
//! make them fails with a message saying why, unless `PLY_SKIP_NETNS=1` is
//! set: then [`Netns::new_or_skip`] says so and returns `None`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// The environment variable that, set to `1`, lets a test without root or
/// network namespaces pass without running.
pub const SKIP: &str = "PLY_SKIP_NETNS";

/// The port every host listens on (each has its own network stack, so the
/// same port serves all and no other test can take it).
pub const PORT: u16 = 7047;

/// The delay `netem` adds on each host's link where the kernel has it.
pub const DELAY: &str = "1ms";

/// Clusters made by this test process so far: names stay unique when tests
/// of one binary make theirs one after another or at once.
static MADE: AtomicUsize = AtomicUsize::new(0);

/// Hosts as network namespaces around a bridge; deleted on drop.
pub struct Netns {
    ip: PathBuf,
    /// The namespace of each host, in order.
    pub hosts: Vec<String>,
    /// The namespace holding the bridge.
    switch: String,
    /// Every namespace made so far (the switch first), deleted on drop.
    made: Vec<String>,
    /// Links made so far, by name: deleted from the root namespace on drop
    /// too, in case a kernel left one there.
    links: Vec<String>,
    /// Whether each host's link delays its packets by [`DELAY`] (`netem`).
    pub delayed: bool,
    /// Each host's end of its link, inside its namespace.
    inside: Vec<String>,
}

/// Where `ip` is, if anywhere.
pub fn ip_command() -> Option<PathBuf> {
    ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
}

/// Whether this process runs as root (effective user 0, from
/// `/proc/self/status`).
pub fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix("Uid:"))
                .and_then(|ids| ids.split_whitespace().nth(1).map(|e| e == "0"))
        })
        .unwrap_or(false)
}

/// Whether the namespace named `name` exists (`ip netns list`).
pub fn exists(name: &str) -> bool {
    let Some(ip) = ip_command() else {
        return false;
    };
    Command::new(ip)
        .args(["netns", "list"])
        .output()
        .is_ok_and(|out| {
            String::from_utf8_lossy(&out.stdout)
                .lines()
                .any(|l| l.split_whitespace().next() == Some(name))
        })
}

impl Netns {
    /// Makes `hosts` hosts (at most 9), or `None` if `PLY_SKIP_NETNS=1`
    /// is set and they cannot be made. Panics, saying why, if they cannot
    /// be made otherwise.
    pub fn new_or_skip(hosts: usize) -> Option<Self> {
        let skip = std::env::var(SKIP).is_ok_and(|v| v == "1");
        match Self::new(hosts) {
            Ok(netns) => Some(netns),
            Err(why) if skip => {
                eprintln!("{SKIP}=1: not run, the network namespaces cannot be made: {why}");
                None
            }
            Err(why) => panic!(
                "cannot make a cluster of network namespaces: {why}\n\
                 This test needs root and iproute2 (`ip netns`); set {SKIP}=1 to skip it \
                 where they are missing."
            ),
        }
    }

    /// Makes `hosts` hosts (at most 9), each namespace named after this
    /// process and a counter (`ply-PID-N-hI`, `ply-PID-N-sw`), after
    /// deleting those of test processes that no longer run.
    pub fn new(hosts: usize) -> Result<Self, String> {
        assert!((1..=9).contains(&hosts), "1 to 9 hosts");
        let ip = ip_command().ok_or("no `ip` command (iproute2) in /usr/sbin, /sbin or /bin")?;
        if !is_root() {
            return Err("not running as root".into());
        }
        sweep(&ip);
        let (pid, made) = (std::process::id(), MADE.fetch_add(1, Ordering::Relaxed));
        let tag = format!("{pid}{made}");
        let prefix = format!("ply-{pid}-{made}");
        let mut netns = Self {
            ip,
            hosts: Vec::new(),
            switch: format!("{prefix}-sw"),
            made: Vec::new(),
            links: Vec::new(),
            delayed: false,
            inside: Vec::new(),
        };
        // Interface names have at most 15 bytes: "p" + tag + "b" + host.
        let bridge = format!("p{tag}br");
        if bridge.len() > 15 {
            return Err(format!("the tag {tag} makes interface names too long"));
        }
        let switch = netns.switch.clone();
        netns.ip(&["netns", "add", &switch])?;
        netns.made.push(switch.clone());
        netns.ip(&["-n", &switch, "link", "set", "lo", "up"])?;
        netns.ip(&["-n", &switch, "link", "add", &bridge, "type", "bridge"])?;
        netns.ip(&["-n", &switch, "link", "set", &bridge, "up"])?;
        for host in 0..hosts {
            let name = format!("{prefix}-h{host}");
            netns.ip(&["netns", "add", &name])?;
            netns.made.push(name.clone());
            netns.hosts.push(name.clone());
            let (inside, port) = (format!("p{tag}a{host}"), format!("p{tag}b{host}"));
            netns.links.extend([inside.clone(), port.clone()]);
            netns.inside.push(inside.clone());
            netns.ip(&[
                "link", "add", &inside, "netns", &name, "type", "veth", "peer", "name", &port,
                "netns", &switch,
            ])?;
            netns.ip(&["-n", &switch, "link", "set", &port, "master", &bridge])?;
            netns.ip(&["-n", &switch, "link", "set", &port, "up"])?;
            let address = format!("{}/24", Self::address(host));
            netns.ip(&["-n", &name, "addr", "add", &address, "dev", &inside])?;
            netns.ip(&["-n", &name, "link", "set", &inside, "up"])?;
            netns.ip(&["-n", &name, "link", "set", "lo", "up"])?;
        }
        netns.delayed = (0..hosts).all(|host| {
            let inside = format!("p{tag}a{host}");
            netns
                .exec(host, "tc")
                .args([
                    "qdisc", "add", "dev", &inside, "root", "netem", "delay", DELAY,
                ])
                .output()
                .is_ok_and(|out| out.status.success())
        });
        Ok(netns)
    }

    /// Runs `ip ARGS`, failing with its error output.
    fn ip(&self, args: &[&str]) -> Result<(), String> {
        let out = Command::new(&self.ip)
            .args(args)
            .output()
            .map_err(|e| format!("cannot run {}: {e}", self.ip.display()))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(format!(
                "`ip {}` failed: {}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr).trim()
            ))
        }
    }

    /// The address of host `host`: 198.18.0.(host + 1).
    pub fn address(host: usize) -> String {
        format!("198.18.0.{}", host + 1)
    }

    /// The hosts file of the cluster: `ADDRESS:PORT` of each host.
    pub fn hosts_file(&self, dir: &Path) -> PathBuf {
        let text: String = (0..self.hosts.len())
            .map(|h| format!("{}:{PORT}\n", Self::address(h)))
            .collect();
        let path = dir.join("hosts");
        std::fs::write(&path, text).expect("the hosts file");
        path
    }

    /// A command running `program` inside host `host`'s namespace
    /// (`ip netns exec`, which execs the program: its process id is the
    /// program's).
    pub fn exec(&self, host: usize, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = Command::new(&self.ip);
        command
            .args(["netns", "exec", &self.hosts[host]])
            .arg(program);
        command
    }

    /// Slows what host `host` sends to `rate` (`tc`'s token bucket,
    /// `tbf`, its queue at most 400 ms long, so that a heartbeat is never
    /// held back near a peer timeout), or with `None` lets it send at full
    /// speed again (with [`DELAY`] where the link had it). Whether the
    /// kernel did it: it may lack `tbf`.
    pub fn throttle(&self, host: usize, rate: Option<&str>) -> bool {
        let dev = self.inside[host].as_str();
        let tc = |args: &[&str]| {
            self.exec(host, "tc")
                .args(args)
                .output()
                .is_ok_and(|out| out.status.success())
        };
        match rate {
            Some(rate) => tc(&[
                "qdisc", "replace", "dev", dev, "root", "tbf", "rate", rate, "burst", "2kb",
                "latency", "400ms",
            ]),
            None if self.delayed => tc(&[
                "qdisc", "replace", "dev", dev, "root", "netem", "delay", DELAY,
            ]),
            None => tc(&["qdisc", "del", "dev", dev, "root"]),
        }
    }

    /// Every namespace this cluster made.
    pub fn names(&self) -> Vec<String> {
        self.made.clone()
    }
}

/// Deletes the namespaces of test processes that no longer run (named
/// `ply-PID-N-...`, PID gone): what a test killed before its guard could
/// drop left behind.
fn sweep(ip: &Path) {
    let Ok(out) = Command::new(ip).args(["netns", "list"]).output() else {
        return;
    };
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Some(name) = line.split_whitespace().next() else {
            continue;
        };
        let mut parts = name.split('-');
        let (Some("ply"), Some(pid), Some(made), Some(_), None) = (
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
        ) else {
            continue;
        };
        let numbers = [pid, made]
            .iter()
            .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        if numbers && !Path::new(&format!("/proc/{pid}")).exists() {
            eprintln!("deleting the namespace {name}, left by test process {pid}");
            let _ = Command::new(ip).args(["netns", "del", name]).output();
        }
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        // Deleting a namespace deletes the links in it (the veth ends, the
        // bridge); a process still inside keeps it alive until it ends,
        // so the tests end theirs first.
        for name in self.made.iter().rev() {
            let _ = Command::new(&self.ip).args(["netns", "del", name]).output();
        }
        for link in &self.links {
            let exists = Command::new(&self.ip)
                .args(["link", "show", link])
                .output()
                .is_ok_and(|out| out.status.success());
            if exists {
                let _ = Command::new(&self.ip).args(["link", "del", link]).output();
            }
        }
        // Give the kernel a moment to finish deleting, so a check right
        // after the drop sees them gone.
        for _ in 0..50 {
            if self.made.iter().all(|n| !exists(n)) {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}
