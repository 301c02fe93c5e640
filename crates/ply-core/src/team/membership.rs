//! Who the processes of a team are: how many, which one this is, where
//! each runs, and how long one may stay silent before it is lost.

use super::TeamError;
use std::time::Duration;

/// One process's place in a team of processes solving one game together.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Team {
    /// How many processes take part.
    pub processes: usize,
    /// Which one this is, from 0.
    pub process: usize,
    /// How long a peer's heartbeat may stay silent before it is lost.
    pub peer_timeout: Duration,
    /// `host:port` of every process, in order, when they talk over TCP;
    /// empty when they share a directory instead.
    pub hosts: Vec<String>,
}

impl Team {
    /// Process `process` of `processes` sharing a directory, taking a peer
    /// as lost after `peer_timeout`; fails unless `process < processes`.
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
            hosts: Vec::new(),
        })
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
            hosts,
        })
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
    }
}
