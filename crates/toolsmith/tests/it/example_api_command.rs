//! `toolsmith example-api` serves the example library API (from
//! toolsmith-testbed) with its OpenAPI spec.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};

#[test]
fn example_api_serves_its_spec() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolsmith"))
        .args(["example-api", "--port", "0"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    // "example API at http://127.0.0.1:PORT (OpenAPI spec at ...); Ctrl-C stops it"
    let addr = first
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split([' ', '/']).next())
        .unwrap_or_else(|| panic!("no address in {first:?}"))
        .to_owned();
    let mut stream = TcpStream::connect(&addr).unwrap();
    write!(
        stream,
        "GET /openapi.json HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(response.contains("\"Example Library\""), "{response}");
    assert!(
        response.contains(&format!("http://{addr}")),
        "the spec names the server it came from"
    );
}
