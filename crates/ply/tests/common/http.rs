//! A minimal HTTP/1.1 client over one kept-alive loopback connection, for the
//! API tests and the load bench (the workspace has no HTTP client crate).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};

/// One answer: the status code, the content type and the body.
pub struct Answer {
    /// The HTTP status code.
    pub status: u16,
    /// The `Content-Type` header, empty if none.
    pub content_type: String,
    /// The body, as text.
    pub body: String,
}

/// A connection to the server, reused request after request.
pub struct Client {
    reader: BufReader<TcpStream>,
}

impl Client {
    /// Opens a connection to `addr`.
    pub fn connect(addr: SocketAddr) -> std::io::Result<Self> {
        let stream = TcpStream::connect(addr)?;
        stream.set_nodelay(true)?;
        Ok(Self {
            reader: BufReader::new(stream),
        })
    }

    /// Sends `GET path` and reads the whole answer.
    pub fn get(&mut self, path: &str) -> std::io::Result<Answer> {
        self.request("GET", path, &[])
    }

    /// Sends a request with `body` and reads the whole answer.
    pub fn request(&mut self, method: &str, path: &str, body: &[u8]) -> std::io::Result<Answer> {
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: localhost\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        let stream = self.reader.get_mut();
        stream.write_all(head.as_bytes())?;
        stream.write_all(body)?;
        let mut line = String::new();
        self.reader.read_line(&mut line)?;
        let status = line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| std::io::Error::other(format!("bad status line {line:?}")))?;
        let mut length = 0usize;
        let mut content_type = String::new();
        loop {
            line.clear();
            self.reader.read_line(&mut line)?;
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                let value = value.trim();
                if name.eq_ignore_ascii_case("content-length") {
                    length = value.parse().map_err(std::io::Error::other)?;
                } else if name.eq_ignore_ascii_case("content-type") {
                    content_type = value.to_string();
                }
            }
        }
        let mut body = vec![0; length];
        self.reader.read_exact(&mut body)?;
        Ok(Answer {
            status,
            content_type,
            body: String::from_utf8(body).map_err(std::io::Error::other)?,
        })
    }
}

/// Percent-encodes a query value (positions hold `#`, which must not be sent raw).
pub fn encode(text: &str) -> String {
    let mut out = String::new();
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/,*".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The path of `GET /api/solve` for `game` and `position`.
pub fn solve_path(game: &str, position: Option<&str>) -> String {
    match position {
        Some(p) => format!("/api/solve?game={}&position={}", encode(game), encode(p)),
        None => format!("/api/solve?game={}", encode(game)),
    }
}
