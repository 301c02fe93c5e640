//! Helpers shared by the integration tests and the load bench.
#![allow(dead_code)]

pub mod http;
pub mod server;
