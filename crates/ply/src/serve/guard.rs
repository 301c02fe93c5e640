//! What every request passes before it reaches a page or the API: the Host
//! and Origin checks (a web page elsewhere must not reach a local server,
//! even through DNS rebinding), the method, the sizes of its line, headers
//! and body, and the request's time limit. Every refusal is a JSON error.

use super::Shared;
use super::api::ApiError;
use super::limits::Limits;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::sync::Arc;

/// The longest request target (path and query) read besides its
/// position, in bytes: a position may add three bytes (one character
/// percent-encoded) per character up to `--max-row` ([`max_uri_bytes`]).
pub const MAX_URI_BYTES: usize = 8 << 10;
/// The most bytes of headers read (hyper refuses far larger ones itself).
pub const MAX_HEADER_BYTES: usize = 16 << 10;
/// The largest request body accepted (the API reads none).
pub const MAX_BODY_BYTES: u64 = 16 << 10;

/// Names that always reach this machine: accepted on any port.
const LOOPBACK_NAMES: [&str; 4] = ["localhost", "127.0.0.1", "[::1]", "localhost."];

/// The Hosts a server accepts: loopback names, the address it is bound
/// to, and those allowed by `--allow-host`.
#[derive(Debug, Clone, Default)]
pub struct Hosts {
    /// Exact `name:port` or `name` forms accepted, lowercase.
    exact: Vec<String>,
}

impl Hosts {
    /// The Hosts for a server bound to `bound` (`ip:port`), plus `allowed`
    /// (each `name` or `name:port`; a bare name is accepted on any port).
    pub fn new(bound: std::net::SocketAddr, allowed: &[String]) -> Self {
        let mut exact = vec![bound.to_string()];
        if bound.port() == 80 {
            exact.push(bound.ip().to_string());
        }
        exact.extend(allowed.iter().map(|h| h.to_ascii_lowercase()));
        Self { exact }
    }

    /// Whether a request with this Host header is for this server.
    pub fn accepts(&self, host: &str) -> bool {
        let host = host.to_ascii_lowercase();
        let name = split_port(&host);
        LOOPBACK_NAMES.contains(&name)
            || self
                .exact
                .iter()
                .any(|h| *h == host || (*h == name && !h.contains(':')))
    }
}

/// The name part of `name[:port]` (IPv6 literals in brackets kept whole).
fn split_port(host: &str) -> &str {
    match host.rfind(':') {
        Some(colon) if !host[colon..].contains(']') => &host[..colon],
        _ => host,
    }
}

/// The longest request target hyper reads at all: longer ones it refuses
/// itself (414, without a JSON body). So positions of more than about
/// 60,000 characters are for `ply solve` on the command line, whatever
/// `--max-row` says.
pub const HYPER_MAX_URI_BYTES: usize = 65_534;

/// The longest request target read under `limits`: [`MAX_URI_BYTES`],
/// plus room for a position of `--max-row` characters, each
/// percent-encoded, within what hyper reads (a target one byte longer
/// still gets this server's own JSON refusal).
pub fn max_uri_bytes(limits: &Limits) -> usize {
    limits
        .max_row
        .saturating_mul(3)
        .saturating_add(MAX_URI_BYTES)
        .min(HYPER_MAX_URI_BYTES - 1)
}

/// The checks, then the request within its time limit.
pub async fn guard(State(shared): State<Arc<Shared>>, request: Request, next: Next) -> Response {
    if let Err(refusal) = check(&shared.hosts, max_uri_bytes(&shared.limits), &request) {
        return refusal.into_response();
    }
    let limit = shared.limits.request_time();
    match tokio::time::timeout(limit, next.run(request)).await {
        Ok(response) => response,
        Err(_) => ApiError::busy(format!(
            "the request took longer than {} s, this server's limit",
            limit.as_secs_f64()
        ))
        .into_response(),
    }
}

fn check(hosts: &Hosts, max_uri: usize, request: &Request) -> Result<(), ApiError> {
    let headers = request.headers();
    let hosts_given = headers.get_all(header::HOST).iter().count();
    if hosts_given > 1 {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            format!("the request has {hosts_given} Host headers; exactly one is allowed"),
        ));
    }
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .ok_or_else(|| ApiError::new(StatusCode::BAD_REQUEST, "the request has no Host header"))?;
    if !hosts.accepts(host) {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            format!(
                "this server does not answer for the host '{}'; start it with --allow-host to allow it",
                excerpt(host)
            ),
        ));
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let same = origin
            .to_str()
            .is_ok_and(|o| o.eq_ignore_ascii_case(&format!("http://{host}")));
        if !same {
            return Err(ApiError::new(
                StatusCode::FORBIDDEN,
                "requests from other sites are refused",
            ));
        }
    }
    if headers
        .get("sec-fetch-site")
        .is_some_and(|s| s.as_bytes().eq_ignore_ascii_case(b"cross-site"))
    {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "requests from other sites are refused",
        ));
    }
    let uri_len = request.uri().to_string().len();
    if uri_len > max_uri {
        return Err(ApiError::new(
            StatusCode::URI_TOO_LONG,
            format!(
                "the request target has {uri_len} bytes; at most {max_uri} \
                 (room for a position of --max-row characters)"
            ),
        ));
    }
    let header_bytes = header_bytes(headers);
    if header_bytes > MAX_HEADER_BYTES {
        return Err(ApiError::new(
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            format!("the headers have {header_bytes} bytes; at most {MAX_HEADER_BYTES}"),
        ));
    }
    let body = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|l| l.to_str().ok()?.parse::<u64>().ok());
    if body.is_some_and(|b| b > MAX_BODY_BYTES) || headers.contains_key(header::TRANSFER_ENCODING) {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "the request body is too large: the server reads at most {MAX_BODY_BYTES} bytes"
            ),
        ));
    }
    if request.method() != Method::GET && request.method() != Method::HEAD {
        return Err(ApiError::new(
            StatusCode::METHOD_NOT_ALLOWED,
            format!("method {} is not allowed: use GET", request.method()),
        )
        .with_header(header::ALLOW, "GET, HEAD"));
    }
    Ok(())
}

fn header_bytes(headers: &HeaderMap) -> usize {
    headers
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len() + 4)
        .sum()
}

/// At most the first 80 characters of `text`, marked if cut.
fn excerpt(text: &str) -> String {
    crate::error::excerpt(text, 80)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_loopback_the_bound_address_or_allowed() {
        let hosts = Hosts::new("127.0.0.1:8080".parse().unwrap(), &["Ply.Example".into()]);
        for ok in [
            "localhost",
            "localhost:8080",
            "127.0.0.1:8080",
            "[::1]:8080",
            "ply.example:9000",
            "PLY.EXAMPLE",
        ] {
            assert!(hosts.accepts(ok), "{ok}");
        }
        for refused in [
            "evil.example",
            "evil.example:8080",
            "localhost.evil.example",
            "127.0.0.2:8080",
            "",
        ] {
            assert!(!hosts.accepts(refused), "{refused}");
        }
        let bound = Hosts::new("192.168.1.5:8080".parse().unwrap(), &[]);
        assert!(bound.accepts("192.168.1.5:8080"));
        assert!(!bound.accepts("192.168.1.5:9090"));
    }
}
