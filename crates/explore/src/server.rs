//! The HTTP side: the app's page and the JSON API, read-only, with axum on tokio.
use std::fmt::Write as _;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::{Path, Query as UrlQuery, Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Map, Value, json};
use textreuse_report::diff::{member_html, shared_html};
use textreuse_report::escape;

use crate::schema::{Kind, Table};
use crate::{Explorer, Query, TableIndex, sample};

/// The address the server binds to unless told otherwise: loopback only.
pub const DEFAULT_HOST: &str = "127.0.0.1";

/// The port the server listens on unless told otherwise.
pub const DEFAULT_PORT: u16 = 8080;

/// The longest request target (path and query) answered; longer ones get 414.
pub const MAX_URI: usize = 8 * 1024;

/// The most bytes of request headers answered; more get 431.
pub const MAX_HEADERS: usize = 16 * 1024;

/// Members of a cluster the cluster view shows at most (with their differences marked).
const MAX_MEMBERS_SHOWN: usize = 1000;

/// Members of a cluster shown in their articles (with `--inputs`), and the characters of
/// context on each side.
const MEMBERS_IN_ARTICLES: usize = 50;
const MEMBER_CONTEXT: usize = 1500;

/// Members of a cluster a sample's row carries.
const MEMBERS_IN_LIST: usize = 5;

/// Characters of a passage above which its shared words are not marked (the word diff grows
/// with the product of the lengths' differences).
const MAX_MARKED_CHARS: usize = 200_000;

const INDEX_HTML: &str = include_str!("../assets/index.html");
const APP_JS: &str = include_str!("../assets/app.js");
const APP_CSS: &str = include_str!("../assets/app.css");

/// Why the server could not run.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The address could not be listened on.
    #[error(
        "could not listen on {addr}: {source}: choose another --port (0 picks a free one) or --host"
    )]
    Bind {
        /// The address.
        addr: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The listener or the runtime failed.
    #[error("the server stopped: {0}")]
    Io(#[from] std::io::Error),
}

/// Serves `explorer` on `host:port` (port 0: a free one) until the process is interrupted
/// (Ctrl-C), on a runtime of its own with `threads` workers (0: all cores); `ready` hears the
/// address once it listens. For a caller without an async runtime, as the CLI is.
pub fn serve_blocking(
    explorer: Arc<Explorer>,
    host: &str,
    port: u16,
    threads: usize,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), ServeError> {
    let mut runtime = tokio::runtime::Builder::new_multi_thread();
    if threads > 0 {
        runtime.worker_threads(threads);
    }
    let runtime = runtime.enable_all().build()?;
    runtime.block_on(async move {
        let addr = format!("{host}:{port}");
        let bind_addr = if host.contains(':') && !host.starts_with('[') {
            format!("[{host}]:{port}")
        } else {
            addr.clone()
        };
        let listener = tokio::net::TcpListener::bind(&bind_addr)
            .await
            .map_err(|source| ServeError::Bind { addr, source })?;
        ready(listener.local_addr()?);
        serve(explorer, listener, async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
    })
}

/// The app and its API over `explorer`: `GET /` (the page), `/app.js`, `/app.css`, `/api`
/// (the tables, their columns, categories and ranges), `/api/TABLE/sample?FILTERS`,
/// `/api/TABLE/ROW`, `/api/TABLE/ROW/similar` (with a persistent index),
/// `/api/article?doc&source&revision&offset&length` and `/report`. Only GET
/// and HEAD; nothing writes; a path that is not one of these is 404, a query that cannot be
/// answered 400 with what to change, a request target over [`MAX_URI`] bytes 414.
pub fn router(explorer: Arc<Explorer>) -> Router {
    Router::new()
        .route(
            "/",
            get(|| async { page(INDEX_HTML, "text/html; charset=utf-8") }),
        )
        .route(
            "/app.js",
            get(|| async { page(APP_JS, "text/javascript; charset=utf-8") }),
        )
        .route(
            "/app.css",
            get(|| async { page(APP_CSS, "text/css; charset=utf-8") }),
        )
        .route("/api", get(info))
        .route("/api/article", get(article))
        .route("/api/{table}/sample", get(sample_rows))
        .route("/api/{table}/{row}", get(detail))
        .route("/api/{table}/{row}/similar", get(similar))
        .route("/report", get(report))
        .fallback(|| async {
            error(
                StatusCode::NOT_FOUND,
                "no such page: the API is under /api (docs/explore.md)",
            )
        })
        .layer(middleware::from_fn(guard))
        .with_state(explorer)
}

/// Serves [`router`] on `listener` until `shutdown` completes. Requests must name the host the
/// listener is bound to (or `localhost`) unless it is bound to every address, so a web page
/// elsewhere cannot read the data through a name that resolves to loopback.
pub async fn serve(
    explorer: Arc<Explorer>,
    listener: tokio::net::TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let addr = listener.local_addr()?;
    let app = router(explorer).layer(middleware::from_fn_with_state(addr, check_host));
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown)
        .await?;
    Ok(())
}

async fn check_host(State(addr): State<SocketAddr>, request: Request, next: Next) -> Response {
    if addr.ip().is_unspecified() {
        return next.run(request).await;
    }
    let allowed = |host: &str| host_allowed(host, addr);
    match request.headers().get(header::HOST).map(|h| h.to_str()) {
        None => next.run(request).await,
        Some(Ok(host)) if allowed(host) => next.run(request).await,
        _ => error(
            StatusCode::FORBIDDEN,
            "the Host header names another server: open the address the explorer printed",
        ),
    }
}

/// Whether a Host header names `addr` (its address or `localhost`, with its port or none).
fn host_allowed(host: &str, addr: SocketAddr) -> bool {
    let (name, port) = if let Some(rest) = host.strip_prefix('[') {
        match rest.split_once(']') {
            Some((name, "")) => (name, None),
            Some((name, port)) => match port.strip_prefix(':') {
                Some(port) => (name, Some(port)),
                None => return false,
            },
            None => return false,
        }
    } else {
        match host.rsplit_once(':') {
            Some((name, port)) => (name, Some(port)),
            None => (host, None),
        }
    };
    let port_ok = port.is_none_or(|p| p.parse::<u16>().ok() == Some(addr.port()));
    port_ok
        && (name.eq_ignore_ascii_case("localhost")
            || name.parse::<std::net::IpAddr>().ok() == Some(addr.ip()))
}

/// Every request: GET or HEAD only, a bounded target; every answer: no sniffing, no framing
/// by other sites, nothing loaded from elsewhere.
async fn guard(request: Request, next: Next) -> Response {
    if request.uri().to_string().len() > MAX_URI {
        return error(
            StatusCode::URI_TOO_LONG,
            &format!(
                "the request target is longer than {MAX_URI} bytes: use fewer or shorter filters"
            ),
        );
    }
    let header_bytes: usize = request
        .headers()
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len() + 4)
        .sum();
    if header_bytes > MAX_HEADERS {
        return error(
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            &format!("the request headers are longer than {MAX_HEADERS} bytes"),
        );
    }
    let query_utf8 = request.uri().query().is_none_or(|q| {
        let q = q.replace('+', " ");
        percent_encoding::percent_decode_str(&q)
            .decode_utf8()
            .is_ok()
    });
    if !query_utf8 {
        return error(
            StatusCode::BAD_REQUEST,
            "the query string is not UTF-8 once percent-decoded",
        );
    }
    if request.method() != Method::GET && request.method() != Method::HEAD {
        let mut response = error(
            StatusCode::METHOD_NOT_ALLOWED,
            "the explorer is read-only: only GET and HEAD",
        );
        response
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return response;
    }
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'self'; form-action 'self'",
        ),
    );
    headers
        .entry(header::CACHE_CONTROL)
        .or_insert(HeaderValue::from_static("no-store"));
    response
}

fn page(body: &'static str, kind: &'static str) -> Response {
    ([(header::CONTENT_TYPE, kind)], body).into_response()
}

fn error(status: StatusCode, message: &str) -> Response {
    let body = json!({ "error": message, "status": status.as_u16() });
    (status, axum::Json(body)).into_response()
}

/// An answer that is an error: its status and what to change.
#[derive(Debug)]
struct ApiError(StatusCode, String);

impl ApiError {
    fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError(status, message.into())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        error(self.0, &self.1)
    }
}

fn json_response(value: &Value) -> Response {
    (
        [(header::CONTENT_TYPE, "application/json")],
        serde_json::to_string(value).expect("values serialize"),
    )
        .into_response()
}

/// The table named in a path, or 404.
fn table_of<'e>(explorer: &'e Explorer, name: &str) -> Result<&'e TableIndex, ApiError> {
    let table = Table::from_name(name).ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "no such table: reuse, clusters or contradictions",
        )
    })?;
    explorer.table(table).ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            format!("this directory has no {}", table.file_name()),
        )
    })
}

async fn info(State(explorer): State<Arc<Explorer>>) -> Response {
    let tables: Vec<Value> = explorer
        .tables()
        .iter()
        .map(|index| {
            let meta = index.meta();
            let columns: Vec<Value> = index
                .table()
                .columns()
                .iter()
                .enumerate()
                .map(|(c, column)| {
                    let mut v =
                        json!({"name": column.name, "kind": column.kind, "about": column.about});
                    if column.kind == Kind::Category {
                        v["categories"] = meta.categories[c]
                            .iter()
                            .zip(&meta.category_rows[c])
                            .map(|(name, rows)| json!({"name": name, "rows": rows}))
                            .collect();
                    }
                    if let Some((lo, hi)) = meta.ranges[c] {
                        v["range"] = json!([lo, hi]);
                    }
                    v
                })
                .collect();
            json!({
                "name": index.table().name(),
                "file": index.table().file_name(),
                "rows": meta.rows,
                "titles": meta.titles,
                "websites": meta.websites,
                "bad_lines": meta.bad_lines,
                "bad_line_examples": meta.bad_line_examples,
                "columns": columns,
            })
        })
        .collect();
    let articles = explorer
        .articles()
        .map(|a| json!({"documents": a.len(), "problems": a.problems()}));
    let lsh_index = explorer
        .lsh_index()
        .map(|i| json!({"documents": i.stats().documents}));
    json_response(&json!({
        "dir": explorer.dir().display().to_string(),
        "tables": tables,
        "stats": explorer.stats(),
        "articles": articles,
        "index": lsh_index,
    }))
}

async fn sample_rows(
    State(explorer): State<Arc<Explorer>>,
    Path(table): Path<String>,
    UrlQuery(params): UrlQuery<Vec<(String, String)>>,
) -> Response {
    let work = tokio::task::spawn_blocking(move || {
        let index = table_of(&explorer, &table)?;
        let query = Query::parse(index, params.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .map_err(|e| ApiError::new(StatusCode::BAD_REQUEST, e.to_string()))?;
        let found = sample(index, &query);
        let rows: Vec<Value> = found
            .rows
            .iter()
            .map(|&row| {
                let mut value = row_json(index, row);
                trim_for_list(index.table(), &mut value);
                json!({"row": row, "data": value})
            })
            .collect();
        Ok::<_, ApiError>(json_response(&json!({
            "table": index.table().name(),
            "matched": found.matched,
            "exact": found.exact,
            "seed": query.seed,
            "n": query.n,
            "skip": query.skip,
            "rows": rows,
        })))
    });
    match work.await {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => e.into_response(),
        Err(_) => error(StatusCode::INTERNAL_SERVER_ERROR, "the sample failed"),
    }
}

/// A row's JSON line as a value (an object saying what went wrong if it no longer parses).
fn row_json(index: &TableIndex, row: u64) -> Value {
    serde_json::from_slice(index.line(row)).unwrap_or_else(|e| {
        json!({"error": format!("this line of {} no longer parses ({e}): was the file changed after the explorer opened it?", index.table().file_name())})
    })
}

/// What a sample's list needs of a row: no passage texts, the first members of a cluster.
fn trim_for_list(table: Table, value: &mut Value) {
    let Some(object) = value.as_object_mut() else {
        return;
    };
    match table {
        Table::Reuse => {
            for key in ["suspicious_text", "source_text"] {
                if let Some(Value::String(text)) = object.get_mut(key)
                    && text.chars().count() > 300
                {
                    let cut: String = text.chars().take(300).collect();
                    *text = cut + " …";
                }
            }
        }
        Table::Clusters => {
            if let Some(Value::Array(members)) = object.get_mut("members") {
                members.truncate(MEMBERS_IN_LIST);
            }
        }
        Table::Contradictions => {}
    }
}

async fn detail(
    State(explorer): State<Arc<Explorer>>,
    Path((table, row)): Path<(String, String)>,
) -> Response {
    let work = tokio::task::spawn_blocking(move || {
        let index = table_of(&explorer, &table)?;
        let row: u64 = row.parse().map_err(|_| {
            ApiError::new(
                StatusCode::BAD_REQUEST,
                "a row is a whole number (from a sample's \"row\")",
            )
        })?;
        if row >= index.len() {
            return Err(ApiError::new(
                StatusCode::NOT_FOUND,
                format!(
                    "{} has rows 0 to {}",
                    index.table().name(),
                    index.len().saturating_sub(1)
                ),
            ));
        }
        let mut value = row_json(index, row);
        let mut out = Map::new();
        out.insert("table".into(), json!(index.table().name()));
        out.insert("row".into(), json!(row));
        out.insert("rows".into(), json!(index.len()));
        match index.table() {
            Table::Reuse => reuse_detail(&explorer, &value, &mut out),
            Table::Clusters => cluster_detail(&explorer, &mut value, &mut out),
            Table::Contradictions => contradiction_detail(&value, &mut out),
        }
        out.insert("data".into(), value);
        Ok::<_, ApiError>(json_response(&Value::Object(out)))
    });
    match work.await {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => e.into_response(),
        Err(_) => error(StatusCode::INTERNAL_SERVER_ERROR, "the view failed"),
    }
}

fn num(value: &Value, key: &str) -> Option<usize> {
    value.get(key)?.as_u64().map(|n| n as usize)
}

fn side<'v>(value: &'v Value, side: &str) -> (&'v str, Option<&'v str>, Option<u64>) {
    let doc = &value[side];
    let id = match &doc["doc"] {
        Value::String(s) => s.as_str(),
        _ => "",
    };
    (id, doc["source"].as_str(), doc["revision"].as_u64())
}

fn reuse_detail(explorer: &Explorer, value: &Value, out: &mut Map<String, Value>) {
    let mut texts: [Option<String>; 2] = [
        value["suspicious_text"].as_str().map(str::to_string),
        value["source_text"].as_str().map(str::to_string),
    ];
    if let Some(articles) = explorer.articles() {
        let mut context = Map::new();
        for (i, name) in ["suspicious", "source"].into_iter().enumerate() {
            let (doc, source, revision) = side(value, name);
            let at = (
                num(value, &format!("{name}_offset")),
                num(value, &format!("{name}_length")),
            );
            let found = articles
                .find(doc, source, revision)
                .zip(at.0.zip(at.1))
                .and_then(|(d, (offset, length))| articles.passage(d, offset, length));
            if let Some(passage) = found {
                texts[i].get_or_insert_with(|| passage.passage.clone());
                context.insert(name.into(), json!(passage));
            }
        }
        out.insert("articles".into(), Value::Object(context));
    }
    if let [Some(a), Some(b)] = &texts {
        let (a_html, b_html) = if a.len() + b.len() <= MAX_MARKED_CHARS {
            shared_html(a, b)
        } else {
            (escape(a), escape(b))
        };
        out.insert("suspicious_html".into(), json!(a_html));
        out.insert("source_html".into(), json!(b_html));
    }
}

fn cluster_detail(explorer: &Explorer, value: &mut Value, out: &mut Map<String, Value>) {
    let representative = value["representative"].as_u64().unwrap_or(0) as usize;
    let Some(Value::Array(members)) = value.get_mut("members") else {
        return;
    };
    out.insert("members_total".into(), json!(members.len()));
    members.truncate(MAX_MEMBERS_SHOWN);
    let rep_text = members
        .get(representative)
        .and_then(|m| m["text"].as_str())
        .unwrap_or("")
        .to_string();
    let html: Vec<Value> = members
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let text = m["text"].as_str().unwrap_or("");
            if i == representative {
                json!(escape(text))
            } else {
                let mut html = String::new();
                member_html(&rep_text, text, &mut html);
                json!(html)
            }
        })
        .collect();
    out.insert("members_html".into(), Value::Array(html));
    if let Some(articles) = explorer.articles() {
        let context: Vec<Value> = members
            .iter()
            .take(MEMBERS_IN_ARTICLES)
            .map(|m| {
                let doc = match &m["doc"] {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                let found = articles.find(&doc, m["source"].as_str(), m["revision"].as_u64());
                let range = num(m, "start").zip(num(m, "end"));
                found
                    .zip(range)
                    .and_then(|(d, (start, end))| {
                        articles.passage_with(d, start, end.saturating_sub(start), MEMBER_CONTEXT)
                    })
                    .map_or(Value::Null, |p| json!(p))
            })
            .collect();
        out.insert("members_articles".into(), Value::Array(context));
    }
}

fn contradiction_detail(value: &Value, out: &mut Map<String, Value>) {
    let facts = value["facts"].as_array().cloned().unwrap_or_default();
    let statements = value["statements"].as_array().cloned().unwrap_or_default();
    let html: Vec<Value> = statements
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let text = s["text"].as_str().unwrap_or("");
            let mut needles: Vec<&str> = Vec::new();
            for fact in &facts {
                let involves = fact["statements"]
                    .as_array()
                    .is_none_or(|list| list.iter().any(|x| x.as_u64() == Some(i as u64)));
                if involves {
                    needles.extend(["a", "b"].iter().filter_map(|k| fact[*k].as_str()));
                }
            }
            json!(mark_all(text, &needles))
        })
        .collect();
    out.insert("statements_html".into(), Value::Array(html));
}

/// `text` as HTML with every occurrence of the needles (longest first, not overlapping) in
/// `<mark>`.
fn mark_all(text: &str, needles: &[&str]) -> String {
    let mut needles: Vec<&str> = needles.iter().copied().filter(|n| !n.is_empty()).collect();
    needles.sort_by_key(|n| std::cmp::Reverse(n.len()));
    let mut html = String::new();
    let mut at = 0;
    while at < text.len() {
        let next = needles
            .iter()
            .filter_map(|n| text[at..].find(n).map(|i| (at + i, n.len())))
            .min_by_key(|&(i, len)| (i, std::cmp::Reverse(len)));
        match next {
            Some((i, len)) => {
                html.push_str(&escape(&text[at..i]));
                let _ = write!(html, "<mark>{}</mark>", escape(&text[i..i + len]));
                at = i + len;
            }
            None => {
                html.push_str(&escape(&text[at..]));
                break;
            }
        }
    }
    html
}

/// Matches listed per unit of a row's text in the persistent index.
const SIMILAR_LIMIT: usize = 20;

/// The text a row is looked up by in the persistent index: a reuse case's suspicious passage,
/// a cluster's representative, a contradiction's first statement.
fn lookup_text(explorer: &Explorer, table: Table, value: &Value) -> Option<String> {
    match table {
        Table::Reuse => value["suspicious_text"]
            .as_str()
            .map(str::to_string)
            .or_else(|| {
                let articles = explorer.articles()?;
                let (doc, source, revision) = side(value, "suspicious");
                let d = articles.find(doc, source, revision)?;
                let offset = num(value, "suspicious_offset")?;
                let length = num(value, "suspicious_length")?;
                Some(articles.passage_with(d, offset, length, 0)?.passage)
            }),
        Table::Clusters => {
            let rep = value["representative"].as_u64().unwrap_or(0) as usize;
            value["members"][rep]["text"].as_str().map(str::to_string)
        }
        Table::Contradictions => value["statements"][0]["text"].as_str().map(str::to_string),
    }
}

async fn similar(
    State(explorer): State<Arc<Explorer>>,
    Path((table, row)): Path<(String, String)>,
) -> Response {
    let work = tokio::task::spawn_blocking(move || {
        let index = table_of(&explorer, &table)?;
        let Some(lsh) = explorer.lsh_index() else {
            return Err(ApiError::new(
                StatusCode::NOT_FOUND,
                "no persistent index was given: start `textreuse explore` with --index DIR",
            ));
        };
        let row: u64 = row
            .parse()
            .map_err(|_| ApiError::new(StatusCode::BAD_REQUEST, "a row is a whole number"))?;
        if row >= index.len() {
            return Err(ApiError::new(StatusCode::NOT_FOUND, "no such row"));
        }
        let value = row_json(index, row);
        let text = lookup_text(&explorer, index.table(), &value).ok_or_else(|| {
            ApiError::new(
                StatusCode::NOT_FOUND,
                "this row has no text to look up (a reuse case needs --passage-texts or --inputs)",
            )
        })?;
        let options = textreuse_index::QueryOptions::new().text(true);
        let units = lsh.query_text(&text, &options).map_err(|e| {
            ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("the index query failed: {e}"),
            )
        })?;
        let units: Vec<Value> = units
            .into_iter()
            .map(|u| {
                let matches: Vec<Value> = u
                    .matches
                    .iter()
                    .take(SIMILAR_LIMIT)
                    .map(|m| {
                        json!({
                            "doc": m.id.to_string(),
                            "title": m.title,
                            "source": m.origin.source.as_deref(),
                            "revision": m.origin.revision,
                            "url": m.origin.url.as_deref(),
                            "estimated_jaccard": m.estimated_jaccard,
                            "text": m.text,
                        })
                    })
                    .collect();
                json!({
                    "text": text.get(u.span.clone()).unwrap_or(""),
                    "matches": matches,
                    "more": u.matches.len().saturating_sub(SIMILAR_LIMIT),
                })
            })
            .collect();
        Ok::<_, ApiError>(json_response(
            &json!({"table": table, "row": row, "units": units}),
        ))
    });
    match work.await {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => e.into_response(),
        Err(_) => error(StatusCode::INTERNAL_SERVER_ERROR, "the lookup failed"),
    }
}

#[derive(serde::Deserialize)]
struct ArticleQuery {
    doc: String,
    source: Option<String>,
    revision: Option<u64>,
    offset: usize,
    length: usize,
}

async fn article(
    State(explorer): State<Arc<Explorer>>,
    query: Result<UrlQuery<ArticleQuery>, axum::extract::rejection::QueryRejection>,
) -> Response {
    let Some(articles) = explorer.articles() else {
        return error(
            StatusCode::NOT_FOUND,
            "no inputs were given: start `textreuse explore` with --inputs (the run's inputs) to see whole articles",
        );
    };
    let UrlQuery(q) = match query {
        Ok(q) => q,
        Err(e) => {
            return error(
                StatusCode::BAD_REQUEST,
                &format!("{e}: give doc, offset and length (and source, revision)"),
            );
        }
    };
    let Some(doc) = articles.find(&q.doc, q.source.as_deref(), q.revision) else {
        return error(StatusCode::NOT_FOUND, "no input document has this id");
    };
    match articles.passage(doc, q.offset, q.length) {
        Some(passage) => json_response(&json!(passage)),
        None => error(
            StatusCode::BAD_REQUEST,
            "offset and length are outside the document",
        ),
    }
}

async fn report(State(explorer): State<Arc<Explorer>>) -> Response {
    let work = tokio::task::spawn_blocking(move || match explorer.report() {
        Ok(html) => (
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            Body::from(html.to_string()),
        )
            .into_response(),
        Err(e) => error(
            StatusCode::NOT_FOUND,
            &format!("no report for this directory: {e}"),
        ),
    });
    work.await
        .unwrap_or_else(|_| error(StatusCode::INTERNAL_SERVER_ERROR, "the report failed"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_bound_address_or_localhost_is_a_host() {
        let v4: SocketAddr = "127.0.0.1:8080".parse().unwrap();
        let v6: SocketAddr = "[::1]:9000".parse().unwrap();
        for host in ["127.0.0.1:8080", "localhost:8080", "LOCALHOST", "127.0.0.1"] {
            assert!(host_allowed(host, v4), "{host}");
        }
        for host in [
            "evil.example:8080",
            "127.0.0.1:8081",
            "127.0.0.2:8080",
            "localhost:x",
            "[::1]:8080",
        ] {
            assert!(!host_allowed(host, v4), "{host}");
        }
        assert!(host_allowed("[::1]:9000", v6));
        assert!(host_allowed("[::1]", v6));
        assert!(!host_allowed("[::1]9000", v6));
        assert!(!host_allowed("[::1", v6));
    }

    #[test]
    fn facts_are_marked_longest_first_and_escaped() {
        assert_eq!(
            mark_all("A <b> of 4.5 million and 4.5", &["4.5", "4.5 million"]),
            "A &lt;b&gt; of <mark>4.5 million</mark> and <mark>4.5</mark>"
        );
        assert_eq!(mark_all("none here", &["x", ""]), "none here");
    }
}
