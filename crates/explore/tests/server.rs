//! The server over real outputs (testdata/explore: the bundled samples' reuse and dedup runs),
//! spoken to over loopback with a small HTTP/1.1 client: the API's answers, hostile requests,
//! and a bounded load of concurrent clients.
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use textreuse_explore::{Explorer, Permutation, Table};

fn testdata(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/explore")
        .join(name)
}

/// A server on a free loopback port over `dir` (index in a temporary directory), stopped
/// when dropped.
struct Server {
    addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
    _index: Option<tempfile::TempDir>,
}

impl Server {
    fn start(dir: &Path) -> Server {
        let index = tempfile::tempdir().unwrap();
        let explorer = Explorer::builder()
            .index_dir(index.path())
            .open(dir)
            .unwrap();
        let mut server = Server::serve(explorer);
        server._index = Some(index);
        server
    }

    fn serve(explorer: Explorer) -> Server {
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let (ready, addr) = std::sync::mpsc::channel();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                ready.send(listener.local_addr().unwrap()).unwrap();
                textreuse_explore::serve(Arc::new(explorer), listener, async {
                    let _ = stopped.await;
                })
                .await
                .unwrap();
            });
        });
        Server {
            addr: addr.recv().unwrap(),
            stop: Some(stop),
            thread: Some(thread),
            _index: None,
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.stop.take().unwrap().send(());
        let _ = self.thread.take().unwrap().join();
    }
}

/// One HTTP/1.1 connection kept open across requests.
struct Client {
    stream: BufReader<TcpStream>,
    host: String,
}

impl Client {
    fn new(addr: SocketAddr) -> Client {
        let stream = TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        Client {
            stream: BufReader::new(stream),
            host: addr.to_string(),
        }
    }

    /// Sends raw bytes as a request; the status and body of the answer (status 0 when the
    /// connection was closed without one).
    fn raw(&mut self, request: &[u8]) -> (u16, Vec<u8>) {
        if self.stream.get_mut().write_all(request).is_err() {
            return (0, Vec::new());
        }
        let mut line = String::new();
        if self.stream.read_line(&mut line).unwrap_or(0) == 0 {
            return (0, Vec::new());
        }
        let status: u16 = line
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let mut length = 0;
        loop {
            let mut header = String::new();
            self.stream.read_line(&mut header).unwrap();
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            let (name, value) = header.split_once(':').unwrap();
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().unwrap();
            }
            assert!(
                !name.eq_ignore_ascii_case("transfer-encoding"),
                "the client reads only sized bodies"
            );
        }
        let mut body = vec![0; length];
        self.stream.read_exact(&mut body).unwrap();
        (status, body)
    }

    fn get(&mut self, target: &str) -> (u16, Value) {
        let request = format!("GET {target} HTTP/1.1\r\nHost: {}\r\n\r\n", self.host);
        let (status, body) = self.raw(request.as_bytes());
        let value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        (status, value)
    }
}

#[test]
fn a_filtered_sample_is_the_earliest_matching_rows_of_the_seeds_order() {
    let dir = testdata("reuse");
    let server = Server::start(&dir);
    let mut client = Client::new(server.addr);
    let (status, info) = client.get("/api");
    assert_eq!(status, 200, "{info}");
    assert_eq!(info["tables"][0]["name"], "reuse");
    assert_eq!(info["tables"][0]["rows"], 438);

    // What the sample must be, from the file itself.
    let lines: Vec<Value> = std::fs::read_to_string(dir.join("reuse.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let passes = |v: &Value| {
        v["kind"] == "content"
            && v["suspicious_words"].as_u64().unwrap() >= 200
            && v["jaccard_10"].as_f64().unwrap() <= 0.5
    };
    let order = Permutation::new(lines.len() as u64, 42);
    let mut expected: Vec<u64> = (0..lines.len() as u64)
        .filter(|&i| passes(&lines[i as usize]))
        .collect();
    expected.sort_by_key(|&i| order.rank(i));
    assert!(
        expected.len() > 30,
        "the filter keeps {} rows",
        expected.len()
    );

    let target =
        "/api/reuse/sample?kind=content&suspicious_words.min=200&jaccard_10.max=0.5&seed=42&n=10";
    let (status, sample) = client.get(target);
    assert_eq!(status, 200, "{sample}");
    let rows: Vec<u64> = sample["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["row"].as_u64().unwrap())
        .collect();
    assert_eq!(rows, expected[..10]);
    assert_eq!(sample["matched"], expected.len());
    assert_eq!(sample["exact"], true);
    for r in sample["rows"].as_array().unwrap() {
        assert!(passes(&r["data"]), "{}", r["data"]);
    }
    // The next page continues the same order; another seed gives another sample.
    let (_, page) = client.get(&format!("{target}&skip=10"));
    let next: Vec<u64> = page["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["row"].as_u64().unwrap())
        .collect();
    assert_eq!(next, expected[10..20]);
    let (_, other) = client.get(
        "/api/reuse/sample?kind=content&suspicious_words.min=200&jaccard_10.max=0.5&seed=43&n=10",
    );
    assert_ne!(other["rows"], sample["rows"]);

    // Titles: every row of a sample by title involves that title.
    let (status, by_title) = client.get("/api/reuse/sample?title=andorra&n=50");
    assert_eq!(status, 200);
    let shown = by_title["rows"].as_array().unwrap();
    assert!(!shown.is_empty());
    for r in shown {
        let t = format!(
            "{} {}",
            r["data"]["suspicious"]["title"], r["data"]["source"]["title"]
        );
        assert!(t.to_lowercase().contains("andorra"), "{t}");
    }
}

#[test]
fn the_views_mark_what_they_show() {
    let server = Server::start(&testdata("dedup"));
    let mut client = Client::new(server.addr);
    // A factual-drift cluster: its members' differing words marked against the representative.
    let (status, sample) = client.get("/api/clusters/sample?type=factual_drift&n=5&seed=3");
    assert_eq!(status, 200, "{sample}");
    assert_eq!(sample["matched"], 27);
    let row = sample["rows"][0]["row"].as_u64().unwrap();
    let (status, cluster) = client.get(&format!("/api/clusters/{row}"));
    assert_eq!(status, 200);
    assert_eq!(cluster["data"]["type"], "factual_drift");
    let html: Vec<&str> = cluster["members_html"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h.as_str().unwrap())
        .collect();
    assert_eq!(
        html.len(),
        cluster["data"]["size"].as_u64().unwrap() as usize
    );
    assert!(
        html.iter()
            .any(|h| h.contains("<ins>") || h.contains("<del>")),
        "{html:?}"
    );
    // A contradiction: the conflicting values marked in the statements.
    let (status, c) = client.get("/api/contradictions/0");
    assert_eq!(status, 200);
    let a = c["data"]["facts"][0]["a"].as_str().unwrap();
    let statements = c["statements_html"].as_array().unwrap();
    assert!(
        statements
            .iter()
            .any(|s| s.as_str().unwrap().contains(&format!("<mark>{a}</mark>"))),
        "{statements:?}"
    );
    // The cluster of a contradiction, by its id.
    let id = c["data"]["cluster"].as_u64().unwrap();
    let (status, found) = client.get(&format!("/api/clusters/sample?cluster={id}"));
    assert_eq!(status, 200);
    assert_eq!(found["matched"], 1);
    assert_eq!(found["rows"][0]["data"]["cluster"], id);
    // The corpus view: the directory's report.
    let (status, _) = client.get("/report");
    assert_eq!(status, 200);
}

/// The output `name` of testdata/explore opened with the bundled samples as its inputs (the
/// outputs name them relative to the repository root; given here by absolute paths, the
/// documents are found by id and revision), and the index's directory.
fn open_with_inputs(name: &str) -> (Explorer, tempfile::TempDir) {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data");
    let index = tempfile::tempdir().unwrap();
    let explorer = Explorer::builder()
        .index_dir(index.path())
        .inputs([
            data.join("enwiki-part-201.xml.bz2"),
            data.join("enwiki-sample-206.xml.bz2"),
        ])
        .open(&testdata(name))
        .unwrap();
    (explorer, index)
}

#[test]
fn the_whole_articles_come_from_the_inputs() {
    let (explorer, _index) = open_with_inputs("reuse");
    let articles = explorer.articles().unwrap();
    assert_eq!(articles.len(), 207);
    let reuse = explorer.table(Table::Reuse).unwrap();
    for row in (0..reuse.len()).step_by(37) {
        let v: Value = serde_json::from_slice(reuse.line(row)).unwrap();
        for side in ["suspicious", "source"] {
            let doc = &v[side];
            let i = articles
                .find(
                    doc["doc"].as_str().unwrap(),
                    doc["source"].as_str(),
                    doc["revision"].as_u64(),
                )
                .unwrap();
            let offset = v[format!("{side}_offset")].as_u64().unwrap() as usize;
            let length = v[format!("{side}_length")].as_u64().unwrap() as usize;
            let passage = articles.passage(i, offset, length).unwrap();
            assert_eq!(passage.title, doc["title"].as_str().unwrap());
            assert_eq!(passage.passage.chars().count(), length);
        }
    }
}

#[test]
fn cluster_members_are_found_in_their_articles() {
    let (explorer, _index) = open_with_inputs("dedup");
    let articles = explorer.articles().unwrap();
    let clusters = explorer.table(Table::Clusters).unwrap();
    let mut members = 0;
    for row in (0..clusters.len()).step_by(23) {
        let v: Value = serde_json::from_slice(clusters.line(row)).unwrap();
        for m in v["members"].as_array().unwrap() {
            let doc = m["doc"].to_string();
            let i = articles
                .find(&doc, m["source"].as_str(), m["revision"].as_u64())
                .unwrap();
            let (start, end) = (
                m["start"].as_u64().unwrap() as usize,
                m["end"].as_u64().unwrap() as usize,
            );
            let passage = articles.passage_with(i, start, end - start, 100).unwrap();
            assert_eq!(passage.passage, m["text"].as_str().unwrap(), "row {row}");
            members += 1;
        }
    }
    assert!(members > 50, "{members}");
}

#[test]
fn a_cluster_is_looked_up_in_a_persistent_index() {
    use textreuse_corpus::Document;
    use textreuse_index::{IndexUnit, IndexWriter, Params};

    let dir = testdata("dedup");
    // An index holding one cluster's representative sentence, lightly edited, and another.
    let lines = std::fs::read_to_string(dir.join("clusters.jsonl")).unwrap();
    let cluster: Value = serde_json::from_str(lines.lines().nth(300).unwrap()).unwrap();
    let text = cluster["members"][0]["text"].as_str().unwrap().to_string();
    let lsh = tempfile::tempdir().unwrap();
    let mut writer = IndexWriter::create(lsh.path(), Params::new(IndexUnit::Sentence)).unwrap();
    writer
        .add(&Document::new(
            "copy",
            "The copy",
            text.replacen(' ', "  ", 1),
        ))
        .unwrap();
    writer
        .add(&Document::new(
            "other",
            "Other",
            "Tomatoes grow best in warm weather with plenty of sun and water.",
        ))
        .unwrap();
    writer.commit().unwrap();
    drop(writer);
    let index = tempfile::tempdir().unwrap();
    let explorer = Explorer::builder()
        .index_dir(index.path())
        .lsh_index(lsh.path())
        .open(&dir)
        .unwrap();
    let server = Server::serve(explorer);
    let mut client = Client::new(server.addr);
    let (status, info) = client.get("/api");
    assert_eq!(
        (status, info["index"]["documents"].as_u64()),
        (200, Some(2))
    );
    let (status, found) = client.get("/api/clusters/300/similar");
    assert_eq!(status, 200, "{found}");
    let matches = &found["units"][0]["matches"];
    assert_eq!(matches[0]["doc"], "copy", "{found}");
    assert_eq!(matches[0]["title"], "The copy");
    assert!(
        matches
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["doc"] != "other")
    );
    // Without an index: 404 saying how to give one.
    let plain = Server::start(&dir);
    let (status, answer) = Client::new(plain.addr).get("/api/clusters/300/similar");
    assert_eq!(status, 404);
    assert!(
        answer["error"].as_str().unwrap().contains("--index"),
        "{answer}"
    );
}

#[test]
fn hostile_requests_get_errors_and_the_server_stays_up() {
    let server = Server::start(&testdata("reuse"));
    let long_title = "a".repeat(10_000);
    let cases: Vec<(String, u16)> = vec![
        ("GET /../../etc/passwd HTTP/1.1".into(), 404),
        ("GET /%2e%2e/%2e%2e/etc/passwd HTTP/1.1".into(), 404),
        (
            "GET /api/..%2f..%2fetc%2fpasswd/sample HTTP/1.1".into(),
            404,
        ),
        ("GET /app.js/../../Cargo.toml HTTP/1.1".into(), 404),
        ("GET /api/reuse/sample?n=abc HTTP/1.1".into(), 400),
        ("GET /api/reuse/sample?n=0 HTTP/1.1".into(), 400),
        ("GET /api/reuse/sample?n=100000 HTTP/1.1".into(), 400),
        (
            "GET /api/reuse/sample?skip=99999999999 HTTP/1.1".into(),
            400,
        ),
        ("GET /api/reuse/sample?seed=-1 HTTP/1.1".into(), 400),
        (
            "GET /api/reuse/sample?jaccard_10.min=0.5&jaccard_10.max=0.1 HTTP/1.1".into(),
            400,
        ),
        (
            "GET /api/reuse/sample?jaccard_10.min=NaN HTTP/1.1".into(),
            400,
        ),
        (
            "GET /api/reuse/sample?jaccard_10.min=1e999 HTTP/1.1".into(),
            400,
        ),
        ("GET /api/reuse/sample?kind=nonsense HTTP/1.1".into(), 400),
        ("GET /api/reuse/sample?kind.min=1 HTTP/1.1".into(), 400),
        ("GET /api/reuse/sample?nosuchfield=1 HTTP/1.1".into(), 400),
        ("GET /api/reuse/sample?n=5&n=6 HTTP/1.1".into(), 400),
        ("GET /api/reuse/sample?title=%FF%FE HTTP/1.1".into(), 400),
        (
            format!("GET /api/reuse/sample?title={long_title} HTTP/1.1"),
            414,
        ),
        ("GET /api/reuse/sample?title=%zz HTTP/1.1".into(), 200),
        ("GET /api/reuse/99999999 HTTP/1.1".into(), 404),
        ("GET /api/reuse/18446744073709551616 HTTP/1.1".into(), 400),
        ("GET /api/reuse/-1 HTTP/1.1".into(), 400),
        ("GET /api/clusters/0 HTTP/1.1".into(), 404),
        ("GET /api/nosuchtable/sample HTTP/1.1".into(), 404),
        (
            "GET /api/article?doc=12&offset=0&length=5 HTTP/1.1".into(),
            404,
        ),
        (
            "POST /api HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}".into(),
            405,
        ),
        ("DELETE /api/reuse/0 HTTP/1.1".into(), 405),
        ("PUT /report HTTP/1.1\r\nContent-Length: 0".into(), 405),
    ];
    for (line, expected) in &cases {
        let mut client = Client::new(server.addr);
        let (head, body) = match line.split_once("\r\n") {
            Some((head, rest)) => (head.to_string(), format!("\r\n{rest}")),
            None => (line.clone(), String::new()),
        };
        let (method_target, version) = head.rsplit_once(' ').unwrap();
        let request = if body.contains("\r\n\r\n") {
            format!("{method_target} {version}\r\nHost: {}{body}", server.addr)
        } else {
            format!(
                "{method_target} {version}\r\nHost: {}{body}\r\n\r\n",
                server.addr
            )
        };
        let (status, answer) = client.raw(request.as_bytes());
        assert_eq!(
            status,
            *expected,
            "{line}: {}",
            String::from_utf8_lossy(&answer)
        );
        if (400..500).contains(&status) {
            let v: Value = serde_json::from_slice(&answer).unwrap_or(Value::Null);
            assert!(
                v["error"].is_string(),
                "{line}: the error says why: {}",
                String::from_utf8_lossy(&answer)
            );
        }
    }
    // Bytes that are not HTTP, raw invalid UTF-8, a huge header, another host.
    let raw: Vec<(Vec<u8>, u16)> = vec![
        (b"GARBAGE\r\n\r\n".to_vec(), 400),
        (
            b"GET /api/reuse/sample?title=\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(),
            400,
        ),
        (
            format!(
                "GET /api HTTP/1.1\r\nHost: {}\r\nX-Big: {}\r\n\r\n",
                server.addr,
                "b".repeat(200_000)
            )
            .into_bytes(),
            431,
        ),
        (
            b"GET /api HTTP/1.1\r\nHost: evil.example\r\n\r\n".to_vec(),
            403,
        ),
        (
            format!(
                "GET /api HTTP/1.1\r\nHost: localhost:{}\r\n\r\n",
                server.addr.port()
            )
            .into_bytes(),
            200,
        ),
    ];
    for (request, expected) in raw {
        let mut client = Client::new(server.addr);
        let (status, _) = client.raw(&request);
        assert_eq!(
            status,
            expected,
            "{}",
            String::from_utf8_lossy(&request[..request.len().min(80)])
        );
    }
    // A client that sends half a request and goes away.
    {
        let mut s = TcpStream::connect(server.addr).unwrap();
        s.write_all(b"GET /api HTTP/1.1\r\nHo").unwrap();
    }
    let mut client = Client::new(server.addr);
    assert_eq!(client.get("/api").0, 200, "the server still answers");
}

/// Mixed queries from many clients at once for a while: every request answered, none failed.
/// `TEXTREUSE_LONG_TESTS=1`: 50 clients for 30 s (the load), else 20 clients for 2 s.
/// The latencies are printed (`-- --nocapture`); they are measured, not asserted.
#[test]
fn concurrent_clients_are_all_answered() {
    let long = std::env::var_os("TEXTREUSE_LONG_TESTS").is_some();
    let (clients, seconds) = if long { (50, 30) } else { (20, 2) };
    let server = Server::start(&testdata("reuse"));
    let addr = server.addr;
    let targets = [
        "/api",
        "/api/reuse/sample?n=20",
        "/api/reuse/sample?kind=structure&n=20&seed=SEED",
        "/api/reuse/sample?jaccard_10.max=0.1&suspicious_words.min=50&suspicious_words.max=400&seed=SEED",
        "/api/reuse/sample?title=an&n=50&seed=SEED",
        "/api/reuse/ROW",
        "/api/reuse/sample?kind=content&entity_jaccard.min=0.5&skip=20&seed=SEED",
        "/api/reuse/sample?nosuchfield=1",
    ];
    let stop = Instant::now() + Duration::from_secs(seconds);
    let workers: Vec<_> = (0..clients)
        .map(|c| {
            std::thread::spawn(move || {
                let mut client = Client::new(addr);
                let mut latencies = Vec::new();
                let mut failures = Vec::new();
                let mut i: u64 = c as u64;
                while Instant::now() < stop {
                    i = i
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let pick = (i >> 33) as usize % targets.len();
                    let target = targets[pick]
                        .replace("SEED", &(i >> 40).to_string())
                        .replace("ROW", &((i >> 35) % 438).to_string());
                    let started = Instant::now();
                    let (status, body) = client.get(&target);
                    latencies.push(started.elapsed());
                    let expected = if target.contains("nosuchfield") {
                        400
                    } else {
                        200
                    };
                    if status != expected || body.is_null() {
                        failures.push(format!("{target}: {status}"));
                    }
                }
                (latencies, failures)
            })
        })
        .collect();
    let mut latencies = Vec::new();
    let mut failures = Vec::new();
    for w in workers {
        let (l, f) = w.join().unwrap();
        latencies.extend(l);
        failures.extend(f);
    }
    latencies.sort();
    let at = |q: f64| latencies[((latencies.len() - 1) as f64 * q) as usize];
    println!(
        "{clients} clients for {seconds} s: {} requests, {} failed; p50 {:?}, p99 {:?}, max {:?}",
        latencies.len(),
        failures.len(),
        at(0.5),
        at(0.99),
        latencies.last().unwrap()
    );
    assert!(failures.is_empty(), "{failures:?}");
    assert!(latencies.len() >= clients, "every client was answered");
}
