//! Helpers shared by the integration tests and the load bench.
#![allow(dead_code)]

pub mod cli;
pub mod dist;
pub mod http;
pub mod netns;
pub mod problem;
pub mod server;
