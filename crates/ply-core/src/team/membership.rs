//! Who the processes of a team are: how many, which one this is, where
//! each runs, and how long one may stay silent before it is lost.

use super::TeamError;
use std::time::Duration;

/// How long a process waits, by default, for every other one of its team
/// to connect ([`Team::connect_timeout`]).
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(20);

/// One process's place in a team of processes solving one game together.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Team {
    /// How many processes take part.
    pub processes: usize,
    /// Which one this is, from 0.
    pub process: usize,
    /// How long a peer's heartbeat may stay silent before it is lost.
    pub peer_timeout: Duration,
    /// How long a process of a team over TCP waits for every other one
    /// to connect ([`CONNECT_TIMEOUT`] unless set).
    pub connect_timeout: Duration,
    /// `host:port` of every process, in order, where they talk over TCP;
    /// empty for a team made by [`Team::new`] alone, which cannot connect.
    pub hosts: Vec<String>,
}

impl Team {
    /// Process `process` of `processes`, taking a peer as lost after
    /// `peer_timeout`, its hosts not known (so it cannot connect: see
    /// [`Team::on_hosts`] and [`Team::on_loopback`]); fails unless
    /// `process < processes`.
    pub fn new(
        processes: usize,
        process: usize,
        peer_timeout: Duration,
    ) -> Result<Team, TeamError> {
        if process >= processes {
            return Err(TeamError::Config(format!(
                "process {process} must be below the number of processes, {processes}"
            )));
        }
        Ok(Team {
            processes,
            process,
            peer_timeout,
            connect_timeout: CONNECT_TIMEOUT,
            hosts: Vec::new(),
        })
    }

    /// Process `process` of `processes` on this machine, over TCP on
    /// loopback: process I listens on `127.0.0.1:PORT+I`, `port` the
    /// first; fails unless `process < processes` and every port is below
    /// 65536.
    pub fn on_loopback(
        processes: usize,
        process: usize,
        port: u16,
        peer_timeout: Duration,
    ) -> Result<Team, TeamError> {
        Team::new(processes, process, peer_timeout)?;
        let last = u64::from(port) + processes as u64 - 1;
        if last > u64::from(u16::MAX) {
            return Err(TeamError::Config(format!(
                "{processes} processes from port {port} need ports up to {last}, past 65535"
            )));
        }
        let hosts = (0..processes)
            .map(|i| format!("127.0.0.1:{}", u64::from(port) + i as u64))
            .collect();
        Team::on_hosts(hosts, process, peer_timeout)
    }

    /// Process `process` of the processes listed in `hosts` (`host:port`
    /// each, in order), connected over TCP, taking a peer as lost after
    /// `peer_timeout`; fails unless the list is non-empty and `process`
    /// is in it.
    pub fn on_hosts(
        hosts: Vec<String>,
        process: usize,
        peer_timeout: Duration,
    ) -> Result<Team, TeamError> {
        if hosts.is_empty() {
            return Err(TeamError::Config("the hosts list is empty".into()));
        }
        if process >= hosts.len() {
            return Err(TeamError::Config(format!(
                "process {process} is not among the {} processes (0..{})",
                hosts.len(),
                hosts.len()
            )));
        }
        Ok(Team {
            processes: hosts.len(),
            process,
            peer_timeout,
            connect_timeout: CONNECT_TIMEOUT,
            hosts,
        })
    }

    /// This team, its processes waiting `timeout` for each other to
    /// connect.
    pub fn with_connect_timeout(self, timeout: Duration) -> Team {
        Team {
            connect_timeout: timeout,
            ..self
        }
    }

    /// Where process `process` runs, if the team knows: its `host:port`.
    pub fn host(&self, process: usize) -> Option<&str> {
        self.hosts.get(process).map(String::as_str)
    }

    /// Process `process` named for people: `process I (HOST)` when its
    /// host is known, else `process I`.
    pub fn name(&self, process: usize) -> String {
        match self.host(process) {
            Some(host) => format!("process {process} ({host})"),
            None => format!("process {process}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_team_holds_only_processes_below_its_count() {
        let second = Duration::from_secs(1);
        assert!(Team::new(2, 1, second).is_ok());
        assert!(matches!(Team::new(2, 2, second), Err(TeamError::Config(_))));
        let hosts = vec!["a:1".to_string(), "b:2".to_string()];
        let team = Team::on_hosts(hosts.clone(), 1, second).unwrap();
        assert_eq!(
            (team.processes, team.name(1)),
            (2, "process 1 (b:2)".into())
        );
        assert!(Team::on_hosts(hosts, 2, second).is_err());
        assert!(Team::on_hosts(Vec::new(), 0, second).is_err());
        assert_eq!(Team::new(3, 0, second).unwrap().name(2), "process 2");
        let local = Team::on_loopback(3, 2, 7047, second).unwrap();
        assert_eq!(local.name(2), "process 2 (127.0.0.1:7049)");
        assert!(Team::on_loopback(3, 3, 7047, second).is_err());
        assert!(Team::on_loopback(3, 0, 65534, second).is_err());
    }
}
