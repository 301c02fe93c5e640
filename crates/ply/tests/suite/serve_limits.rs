//! `ply serve` under attack, on loopback: each refusal the server makes to
//! stay up, and that it stays up. Every loop is bounded and every wait short.

use crate::common;

use common::http::{Client, solve_path};
use common::server::Process as Server;
use ply::serve::DEFAULT_CACHE_BYTES;
use ply::serve::limits::Limits;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// A position of tic-tac-toe 6x6x4 far too long to search in a second.
const HEAVY: &str = "tictactoe:6x6x4";

fn limits() -> Limits {
    Limits {
        solve_seconds: 0.5,
        ..Limits::default()
    }
}

/// The user and system CPU time of the process whose /proc directory is
/// `proc`, in clock ticks (`stat` utime + stime).
fn cpu_ticks(proc: &str) -> u64 {
    let stat = std::fs::read_to_string(format!("{proc}/stat")).unwrap();
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    // Fields 14 and 15 (utime, stime) are at 11 and 12 after the name.
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

/// The CPU ticks the process `proc` uses in the next second.
fn ticks_in_a_second(proc: &str) -> u64 {
    let before = cpu_ticks(proc);
    std::thread::sleep(Duration::from_secs(1));
    cpu_ticks(proc) - before
}

fn threads(proc: &str) -> usize {
    std::fs::read_dir(format!("{proc}/task")).unwrap().count()
}

/// A raw request with headers of our choosing: the status and the body.
fn raw(addr: SocketAddr, request: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut text = String::new();
    let _ = stream.read_to_string(&mut text);
    let status = text.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, text)
}

#[test]
fn a_heavy_request_gets_503_in_its_budget_and_its_search_stops() {
    let server = Server::start(&["--solve-seconds", "0.5"]);
    let addr = server.addr;
    let mut client = Client::connect(addr).unwrap();
    let started = Instant::now();
    let answer = client.get(&solve_path(HEAVY, None)).unwrap();
    assert_eq!(answer.status, 503, "{}", answer.body);
    assert!(
        answer.body.contains("ply solve tictactoe:6x6x4"),
        "{}",
        answer.body
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    let (_, text) = raw(
        addr,
        &format!(
            "GET {} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
            solve_path(HEAVY, None)
        ),
    );
    assert!(
        text.to_ascii_lowercase().contains("retry-after: "),
        "{text}"
    );
    // The searches have stopped: the process uses (almost) no CPU now.
    std::thread::sleep(Duration::from_millis(200));
    let used = ticks_in_a_second(&server.proc());
    assert!(
        used < 30,
        "{used} ticks of CPU in a second with nothing to do"
    );
}

#[test]
fn euler_answers_while_sixteen_heavy_requests_run() {
    let (addr, _) = common::server::start_with(
        4,
        0,
        Limits {
            solve_seconds: 3.0,
            ..Limits::default()
        },
    );
    // Open euler (its table is built once).
    let mut client = Client::connect(addr).unwrap();
    assert_eq!(client.get(&solve_path("euler", None)).unwrap().status, 200);
    let heavy: Vec<_> = (0..16)
        .map(|_| {
            std::thread::spawn(move || {
                let mut client = Client::connect(addr).unwrap();
                client.get(&solve_path(HEAVY, None)).unwrap().status
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(200));
    // Distinct positions, so that none comes from the cache.
    let mut times = Vec::new();
    for i in 0..50u32 {
        let row = |bits: u32| -> String {
            (0..4)
                .map(|s| if bits >> s & 1 == 1 { 'X' } else { '.' })
                .collect()
        };
        let position = format!("{}/{}/..../....", row(i % 16), row(i / 16));
        let started = Instant::now();
        let answer = client.get(&solve_path("euler", Some(&position))).unwrap();
        times.push(started.elapsed());
        assert_eq!(answer.status, 200, "{}", answer.body);
    }
    times.sort();
    let p99 = times[times.len() * 99 / 100];
    assert!(p99 < Duration::from_millis(100), "p99 {p99:?}");
    for h in heavy {
        assert_eq!(h.join().unwrap(), 503);
    }
}

#[test]
fn after_forty_variants_the_games_and_the_page_still_load() {
    let (addr, _) = common::server::start_with(2, DEFAULT_CACHE_BYTES, limits());
    let mut client = Client::connect(addr).unwrap();
    let mut refused = 0;
    // Forty distinct small variants (a pin at most as long as the longer side).
    let variants = (1..=4u32)
        .flat_map(|rows| (1..=5u32).map(move |cols| (rows, cols)))
        .flat_map(|(rows, cols)| (1..=rows.max(cols)).map(move |pin| (rows, cols, pin)))
        .take(40)
        .collect::<Vec<_>>();
    assert_eq!(variants.len(), 40);
    for (rows, cols, pin) in variants {
        let game = format!("euler:{rows}x{cols}x{pin}");
        let status = client.get(&solve_path(&game, None)).unwrap().status;
        assert!(status == 200 || status == 503, "{game}: {status}");
        refused += usize::from(status == 503);
    }
    assert_eq!(refused, 0, "small variants are never refused");
    assert_eq!(client.get("/api/games").unwrap().status, 200);
    assert_eq!(client.get("/").unwrap().status, 200);
    assert_eq!(
        client
            .get(&solve_path("tictactoe:3x3x3", None))
            .unwrap()
            .status,
        200
    );
}

#[test]
fn a_foreign_host_or_origin_is_refused() {
    let (addr, _) = common::server::start_with(2, 0, limits());
    let get = |headers: &str| {
        raw(
            addr,
            &format!("GET /api/games HTTP/1.1\r\n{headers}Connection: close\r\n\r\n"),
        )
    };
    let (status, body) = get("Host: evil.example\r\n");
    assert_eq!(status, 403);
    assert!(body.contains("--allow-host"), "{body}");
    assert_eq!(get(&format!("Host: {addr}\r\n")).0, 200);
    assert_eq!(
        get("Host: localhost\r\nOrigin: http://evil.example\r\n").0,
        403
    );
    assert_eq!(
        get("Host: localhost\r\nOrigin: http://localhost\r\n").0,
        200
    );
    assert_eq!(get("").0, 400);
    // Refusals of the method, the target and the headers are JSON too.
    let (status, body) = raw(
        addr,
        "DELETE / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
    );
    assert_eq!(status, 405);
    assert!(body.contains("{\"error\":"), "{body}");
    let long = format!(
        "GET /?{} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
        "a".repeat(ply::serve::guard::max_uri_bytes(&limits()) - 1)
    );
    let (status, body) = raw(addr, &long);
    assert_eq!(status, 414);
    assert!(body.contains("{\"error\":"), "{body}");
    let (status, body) = get(&format!(
        "Host: localhost\r\nX-Big: {}\r\n",
        "b".repeat(20_000)
    ));
    assert_eq!(status, 431);
    assert!(body.contains("{\"error\":"), "{body}");
}

#[test]
fn half_open_connections_are_closed_and_others_go_on() {
    let (addr, _) = common::server::start_with(
        2,
        0,
        Limits {
            header_seconds: 0.5,
            ..limits()
        },
    );
    let mut half_open: Vec<TcpStream> = (0..1000)
        .map(|i| {
            let mut s = TcpStream::connect(addr).unwrap();
            if i % 2 == 0 {
                s.write_all(b"GET /api/ga").unwrap();
            }
            s
        })
        .collect();
    let mut client = Client::connect(addr).unwrap();
    assert_eq!(client.get("/api/games").unwrap().status, 200);
    std::thread::sleep(Duration::from_secs(2));
    let mut closed = 0;
    for s in &mut half_open {
        s.set_read_timeout(Some(Duration::from_millis(500)))
            .unwrap();
        let mut buf = [0u8; 512];
        // Closed: end of stream (or a reset), perhaps after a 408.
        loop {
            match s.read(&mut buf) {
                Ok(0) => {
                    closed += 1;
                    break;
                }
                Err(e)
                    if e.kind() == std::io::ErrorKind::WouldBlock
                        || e.kind() == std::io::ErrorKind::TimedOut =>
                {
                    break;
                }
                Err(_) => {
                    closed += 1;
                    break;
                }
                Ok(_) => continue,
            }
        }
    }
    assert_eq!(closed, 1000);
    let mut client = Client::connect(addr).unwrap();
    assert_eq!(client.get("/api/games").unwrap().status, 200);
}

#[test]
fn clients_that_hang_up_leave_no_threads_or_work() {
    let server = Server::start(&["--solve-seconds", "30"]);
    let addr = server.addr;
    assert_eq!(
        Client::connect(addr)
            .unwrap()
            .get("/api/games")
            .unwrap()
            .status,
        200
    );
    let before = threads(&server.proc());
    for i in 0..2000 {
        let mut s = TcpStream::connect(addr).unwrap();
        let game = if i % 2 == 0 { HEAVY } else { "tictactoe:6x6x5" };
        write!(
            s,
            "GET {} HTTP/1.1\r\nHost: localhost\r\n\r\n",
            solve_path(game, None)
        )
        .unwrap();
        drop(s);
    }
    std::thread::sleep(Duration::from_secs(1));
    let used = ticks_in_a_second(&server.proc());
    assert!(
        used < 30,
        "{used} ticks of CPU a second after every client left"
    );
    let after = threads(&server.proc());
    assert!(
        after <= before + 8,
        "{before} threads before, {after} after"
    );
    // A new connection: one kept idle through the 2,000 would be closed
    // after --header-seconds (10 s) on a loaded machine, as it should be.
    let mut client = Client::connect(addr).unwrap();
    assert_eq!(client.get(&solve_path("euler", None)).unwrap().status, 200);
}

#[test]
fn a_memory_budget_refuses_rather_than_aborts() {
    let (addr, shared) = common::server::start_with(
        2,
        0,
        Limits {
            session_mib: 16,
            ..limits()
        },
    );
    let mut client = Client::connect(addr).unwrap();
    let answer = client.get(&solve_path("euler:4x6", None)).unwrap();
    assert_eq!(answer.status, 503, "{}", answer.body);
    assert!(answer.body.contains("32 MiB"), "{}", answer.body);
    // Games that fit are still answered, within the budget.
    for game in ["euler:4x5", "euler:5x4", "euler:3x6", "euler"] {
        assert_eq!(
            client.get(&solve_path(game, None)).unwrap().status,
            200,
            "{game}"
        );
        assert!(shared.sessions.usage().1 <= 16 << 20);
    }
    assert_eq!(client.get("/api/games").unwrap().status, 200);
}

#[test]
fn a_host_name_is_accepted_as_the_address() {
    let server = Server::start(&["--addr", "localhost:0"]);
    assert!(server.addr.ip().is_loopback(), "{}", server.addr);
    let answer = Client::connect(server.addr)
        .unwrap()
        .get("/api/games")
        .unwrap();
    assert_eq!(answer.status, 200);
}

#[test]
fn an_address_that_names_nothing_is_refused_clearly() {
    let out = common::cli::ply(&["serve", "--addr", "no-port-here"], b"");
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--addr no-port-here") && err.contains("HOST:PORT"),
        "{err}"
    );
}

#[test]
fn two_host_headers_are_refused() {
    let (addr, _) = common::server::start_with(1, DEFAULT_CACHE_BYTES, limits());
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .write_all(b"GET /api/games HTTP/1.1\r\nHost: localhost\r\nHost: evil.example\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    assert!(answer.contains("2 Host headers"), "{answer}");
}

#[test]
fn a_client_that_never_reads_its_answers_is_cut_off() {
    // One connection at most: while the client that reads nothing holds
    // it, nobody else is served.
    let server = Server::start(&["--max-connections", "1", "--request-seconds", "1"]);
    let mut silent = TcpStream::connect(server.addr).unwrap();
    // Far more answers than the sockets' buffers hold (each about 180 KB).
    let request = format!(
        "GET {} HTTP/1.1\r\nHost: localhost\r\n\r\n",
        solve_path("treblecross:5000", None).replacen("/api/solve", "/api/board", 1)
    );
    silent.write_all(request.repeat(300).as_bytes()).unwrap();
    let start = Instant::now();
    let served = loop {
        let answer = Client::connect(server.addr).and_then(|mut c| c.get("/api/games"));
        if let Ok(answer) = answer {
            break answer;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "nobody else was served for 30 s"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(served.status, 200);
    drop(silent);
}

#[test]
fn a_refused_preload_says_why_in_words() {
    let out = common::cli::ply(
        &[
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--preload",
            "euler:5x6",
            "--max-table-mib",
            "1",
        ],
        b"",
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--preload euler:5x6: euler:5x6 has no database")
            && err.contains("needs up to")
            && err.contains("`ply analyze euler:5x6 --save`"),
        "{err}"
    );
    assert!(!err.contains("TooLarge("), "{err}");
}
