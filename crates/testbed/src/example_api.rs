//! The example API: a small lending library (authors, books, members,
//! loans) served over HTTP, with its own OpenAPI 3.0 spec at
//! `/openapi.json`. Calls depend on each other as in real tasks: search
//! authors, list an author's books, read a book, borrow it, read the loan.
//!
//! Tests start it in-process on `127.0.0.1:0`; `toolsmith example-api`
//! serves it for the quickstart.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::error::{Error, Result};

/// The spec as shipped, with the placeholder server `http://127.0.0.1:8080`.
pub const LIBRARY_SPEC: &str = include_str!("../assets/library_openapi.json");

/// 24 queries on the example API in RestGPT's format (`query`, gold `solution` path of one
/// to four calls, and the expected `answer`): the quickstart's agent benchmark.
pub const LIBRARY_QUERIES: &str = include_str!("../assets/library_queries.json");

/// The spec with its server set to `base_url`, ready to import.
pub fn library_spec(base_url: &str) -> Value {
    let mut spec: Value = serde_json::from_str(LIBRARY_SPEC).unwrap_or(Value::Null);
    if let Some(servers) = spec.get_mut("servers") {
        *servers = json!([{ "url": base_url.trim_end_matches('/') }]);
    }
    spec
}

#[derive(Clone, Debug)]
struct Author {
    id: u64,
    name: &'static str,
    born: u64,
    country: &'static str,
}

#[derive(Clone, Debug)]
struct Book {
    id: u64,
    title: &'static str,
    author_id: u64,
    year: u64,
    genre: &'static str,
    isbn: &'static str,
    copies: u64,
}

#[derive(Clone, Debug)]
struct Loan {
    id: u64,
    book_id: u64,
    member_id: u64,
    due_day: u64,
    active: bool,
}

const AUTHORS: &[Author] = &[
    Author {
        id: 1,
        name: "Ursula K. Le Guin",
        born: 1929,
        country: "US",
    },
    Author {
        id: 2,
        name: "Stanisław Lem",
        born: 1921,
        country: "PL",
    },
    Author {
        id: 3,
        name: "Octavia E. Butler",
        born: 1947,
        country: "US",
    },
    Author {
        id: 4,
        name: "Italo Calvino",
        born: 1923,
        country: "IT",
    },
    Author {
        id: 5,
        name: "Rachel Carson",
        born: 1907,
        country: "US",
    },
];

const BOOKS: &[Book] = &[
    Book {
        id: 1,
        title: "A Wizard of Earthsea",
        author_id: 1,
        year: 1968,
        genre: "fiction",
        isbn: "978-0-547-72202-3",
        copies: 3,
    },
    Book {
        id: 2,
        title: "The Left Hand of Darkness",
        author_id: 1,
        year: 1969,
        genre: "fiction",
        isbn: "978-0-441-47812-5",
        copies: 1,
    },
    Book {
        id: 3,
        title: "The Dispossessed",
        author_id: 1,
        year: 1974,
        genre: "fiction",
        isbn: "978-0-06-051275-4",
        copies: 2,
    },
    Book {
        id: 4,
        title: "Solaris",
        author_id: 2,
        year: 1961,
        genre: "fiction",
        isbn: "978-0-15-602760-1",
        copies: 2,
    },
    Book {
        id: 5,
        title: "The Cyberiad",
        author_id: 2,
        year: 1965,
        genre: "fiction",
        isbn: "978-0-15-602759-5",
        copies: 1,
    },
    Book {
        id: 6,
        title: "Kindred",
        author_id: 3,
        year: 1979,
        genre: "fiction",
        isbn: "978-0-8070-8305-0",
        copies: 2,
    },
    Book {
        id: 7,
        title: "Parable of the Sower",
        author_id: 3,
        year: 1993,
        genre: "fiction",
        isbn: "978-1-53-871732-3",
        copies: 0,
    },
    Book {
        id: 8,
        title: "Invisible Cities",
        author_id: 4,
        year: 1972,
        genre: "fiction",
        isbn: "978-0-15-645380-6",
        copies: 1,
    },
    Book {
        id: 9,
        title: "Italian Folktales",
        author_id: 4,
        year: 1956,
        genre: "children",
        isbn: "978-0-15-645489-6",
        copies: 1,
    },
    Book {
        id: 10,
        title: "Silent Spring",
        author_id: 5,
        year: 1962,
        genre: "science",
        isbn: "978-0-618-24906-0",
        copies: 2,
    },
    Book {
        id: 11,
        title: "The Sea Around Us",
        author_id: 5,
        year: 1951,
        genre: "science",
        isbn: "978-0-19-506997-1",
        copies: 1,
    },
];

const MEMBERS: &[(u64, &str)] = &[(1, "Ada Park"), (2, "Ben Osei"), (3, "Chloé Martin")];

/// Day numbers become dates from this one (no clock: responses stay reproducible).
const FIRST_DAY: (i64, u32, u32) = (2025, 1, 1);

#[derive(Debug, Default)]
struct Loans {
    next_id: u64,
    day: u64,
    loans: Vec<Loan>,
}

type Shared = Arc<Mutex<Loans>>;

struct ApiError(StatusCode, String);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.0, Json(json!({ "error": self.1 }))).into_response()
    }
}

type Reply = std::result::Result<Response, ApiError>;

fn not_found(what: &str, id: u64) -> ApiError {
    ApiError(StatusCode::NOT_FOUND, format!("no {what} with id {id}"))
}

fn lock(state: &Shared) -> std::result::Result<std::sync::MutexGuard<'_, Loans>, ApiError> {
    state.lock().map_err(|_| {
        ApiError(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal error".to_owned(),
        )
    })
}

fn author_json(a: &Author) -> Value {
    json!({"id": a.id, "name": a.name, "born": a.born, "country": a.country})
}

fn copies_available(loans: &Loans, book: &Book) -> u64 {
    let out = loans
        .loans
        .iter()
        .filter(|l| l.active && l.book_id == book.id)
        .count();
    book.copies
        .saturating_sub(u64::try_from(out).unwrap_or(u64::MAX))
}

fn book_json(loans: &Loans, b: &Book) -> Value {
    json!({
        "id": b.id, "title": b.title, "author_id": b.author_id, "year": b.year,
        "genre": b.genre, "isbn": b.isbn, "copies_available": copies_available(loans, b)
    })
}

fn date(day: u64) -> String {
    // A plain calendar walk; loans last at most a few hundred days.
    let (mut year, mut month, mut dom) = FIRST_DAY;
    for _ in 0..day {
        let days_in_month = match month {
            2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            _ => 31,
        };
        dom += 1;
        if dom > days_in_month {
            dom = 1;
            month += 1;
            if month > 12 {
                month = 1;
                year += 1;
            }
        }
    }
    format!("{year}-{month:02}-{dom:02}")
}

fn loan_json(l: &Loan) -> Value {
    json!({
        "id": l.id, "book_id": l.book_id, "member_id": l.member_id,
        "due_date": date(l.due_day), "status": if l.active { "active" } else { "returned" }
    })
}

#[derive(Deserialize)]
struct AuthorQuery {
    name: Option<String>,
}

async fn search_authors(Query(q): Query<AuthorQuery>) -> Reply {
    let needle = q.name.unwrap_or_default().to_lowercase();
    if needle.trim().is_empty() {
        return Err(ApiError(
            StatusCode::BAD_REQUEST,
            "query parameter `name` is required".to_owned(),
        ));
    }
    let results: Vec<Value> = AUTHORS
        .iter()
        .filter(|a| a.name.to_lowercase().contains(&needle))
        .map(author_json)
        .collect();
    Ok(Json(json!({ "results": results })).into_response())
}

async fn get_author(Path(id): Path<u64>) -> Reply {
    let author = AUTHORS
        .iter()
        .find(|a| a.id == id)
        .ok_or_else(|| not_found("author", id))?;
    Ok(Json(author_json(author)).into_response())
}

async fn author_books(State(state): State<Shared>, Path(id): Path<u64>) -> Reply {
    if !AUTHORS.iter().any(|a| a.id == id) {
        return Err(not_found("author", id));
    }
    let loans = lock(&state)?;
    let mut books: Vec<&Book> = BOOKS.iter().filter(|b| b.author_id == id).collect();
    books.sort_by_key(|b| b.year);
    let books: Vec<Value> = books.into_iter().map(|b| book_json(&loans, b)).collect();
    Ok(Json(json!({ "author_id": id, "books": books })).into_response())
}

#[derive(Deserialize)]
struct BookQuery {
    title: Option<String>,
    genre: Option<String>,
    limit: Option<usize>,
}

async fn search_books(State(state): State<Shared>, Query(q): Query<BookQuery>) -> Reply {
    let limit = q.limit.unwrap_or(10);
    if !(1..=50).contains(&limit) {
        return Err(ApiError(
            StatusCode::BAD_REQUEST,
            "`limit` must be between 1 and 50".to_owned(),
        ));
    }
    let needle = q.title.unwrap_or_default().to_lowercase();
    let loans = lock(&state)?;
    let matching: Vec<&Book> = BOOKS
        .iter()
        .filter(|b| b.title.to_lowercase().contains(&needle))
        .filter(|b| q.genre.as_deref().is_none_or(|g| g == b.genre))
        .collect();
    let results: Vec<Value> = matching
        .iter()
        .take(limit)
        .map(|b| book_json(&loans, b))
        .collect();
    Ok(Json(json!({ "results": results, "total": matching.len() })).into_response())
}

async fn get_book(State(state): State<Shared>, Path(id): Path<u64>) -> Reply {
    let book = BOOKS
        .iter()
        .find(|b| b.id == id)
        .ok_or_else(|| not_found("book", id))?;
    let loans = lock(&state)?;
    Ok(Json(book_json(&loans, book)).into_response())
}

async fn availability(State(state): State<Shared>, Path(id): Path<u64>) -> Reply {
    let book = BOOKS
        .iter()
        .find(|b| b.id == id)
        .ok_or_else(|| not_found("book", id))?;
    let loans = lock(&state)?;
    let available = copies_available(&loans, book);
    let next_due = loans
        .loans
        .iter()
        .filter(|l| l.active && l.book_id == id)
        .map(|l| l.due_day)
        .min();
    let mut body =
        json!({"book_id": id, "available": available > 0, "copies_available": available});
    if let (Some(day), Some(map)) = (next_due, body.as_object_mut()) {
        map.insert("next_due_date".to_owned(), json!(date(day)));
    }
    Ok(Json(body).into_response())
}

async fn get_member(State(state): State<Shared>, Path(id): Path<u64>) -> Reply {
    let (_, name) = MEMBERS
        .iter()
        .find(|(m, _)| *m == id)
        .ok_or_else(|| not_found("member", id))?;
    let loans = lock(&state)?;
    let active = loans
        .loans
        .iter()
        .filter(|l| l.active && l.member_id == id)
        .count();
    Ok(Json(json!({"id": id, "name": name, "active_loans": active})).into_response())
}

async fn member_loans(State(state): State<Shared>, Path(id): Path<u64>) -> Reply {
    if !MEMBERS.iter().any(|(m, _)| *m == id) {
        return Err(not_found("member", id));
    }
    let loans = lock(&state)?;
    let list: Vec<Value> = loans
        .loans
        .iter()
        .rev()
        .filter(|l| l.member_id == id)
        .map(loan_json)
        .collect();
    Ok(Json(json!({"member_id": id, "loans": list})).into_response())
}

#[derive(Deserialize)]
struct NewLoan {
    book_id: u64,
    member_id: u64,
    days: Option<u64>,
}

async fn create_loan(State(state): State<Shared>, body: Option<Json<Value>>) -> Reply {
    let Some(Json(raw)) = body else {
        return Err(ApiError(
            StatusCode::BAD_REQUEST,
            "send a JSON body with book_id and member_id".to_owned(),
        ));
    };
    let new: NewLoan = serde_json::from_value(raw)
        .map_err(|e| ApiError(StatusCode::BAD_REQUEST, format!("bad loan request: {e}")))?;
    let days = new.days.unwrap_or(14);
    if !(1..=60).contains(&days) {
        return Err(ApiError(
            StatusCode::BAD_REQUEST,
            "`days` must be between 1 and 60".to_owned(),
        ));
    }
    let book = BOOKS
        .iter()
        .find(|b| b.id == new.book_id)
        .ok_or_else(|| not_found("book", new.book_id))?;
    if !MEMBERS.iter().any(|(m, _)| *m == new.member_id) {
        return Err(not_found("member", new.member_id));
    }
    let mut loans = lock(&state)?;
    if copies_available(&loans, book) == 0 {
        return Err(ApiError(
            StatusCode::CONFLICT,
            format!("no copy of book {} is available now", book.id),
        ));
    }
    loans.next_id += 1;
    loans.day += 1;
    let loan = Loan {
        id: loans.next_id,
        book_id: book.id,
        member_id: new.member_id,
        due_day: loans.day + days,
        active: true,
    };
    let body = loan_json(&loan);
    loans.loans.push(loan);
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

async fn get_loan(State(state): State<Shared>, Path(id): Path<u64>) -> Reply {
    let loans = lock(&state)?;
    let loan = loans
        .loans
        .iter()
        .find(|l| l.id == id)
        .ok_or_else(|| not_found("loan", id))?;
    Ok(Json(loan_json(loan)).into_response())
}

async fn return_loan(State(state): State<Shared>, Path(id): Path<u64>) -> Reply {
    let mut loans = lock(&state)?;
    let loan = loans
        .loans
        .iter_mut()
        .find(|l| l.id == id)
        .ok_or_else(|| not_found("loan", id))?;
    loan.active = false;
    let body = loan_json(loan);
    Ok(Json(body).into_response())
}

/// The example API's routes, with fresh state (no loans); `/openapi.json`
/// names `base_url` as its server.
pub fn library_router(base_url: &str) -> Router {
    let state: Shared = Arc::new(Mutex::new(Loans::default()));
    let spec = Json(library_spec(base_url));
    Router::new()
        .route("/openapi.json", get(move || async move { spec }))
        .route("/authors", get(search_authors))
        .route("/authors/{author_id}", get(get_author))
        .route("/authors/{author_id}/books", get(author_books))
        .route("/books", get(search_books))
        .route("/books/{book_id}", get(get_book))
        .route("/books/{book_id}/availability", get(availability))
        .route("/members/{member_id}", get(get_member))
        .route("/members/{member_id}/loans", get(member_loans))
        .route("/loans", axum::routing::post(create_loan))
        .route("/loans/{loan_id}", get(get_loan).delete(return_loan))
        .with_state(state)
}

/// A running example API.
#[derive(Debug)]
pub struct ExampleApi {
    addr: SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

impl ExampleApi {
    /// Binds `addr` (`127.0.0.1:0` for any free port) and serves the API on
    /// the current tokio runtime until dropped.
    pub async fn start(addr: SocketAddr) -> Result<Self> {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|source| Error::Io {
                context: format!("binding {addr}"),
                source,
            })?;
        let addr = listener.local_addr().map_err(|source| Error::Io {
            context: "reading the bound address".to_owned(),
            source,
        })?;
        let router = library_router(&format!("http://{addr}"));
        let task = tokio::spawn(async move {
            if let Err(err) = axum::serve(listener, router).await {
                tracing::error!(%err, "example API stopped");
            }
        });
        Ok(Self { addr, task })
    }

    /// Where it listens.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Its base URL (`http://127.0.0.1:PORT`).
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Serves until the task ends (it does not, unless the socket fails).
    pub async fn wait(mut self) -> Result<()> {
        let task = std::mem::replace(&mut self.task, tokio::spawn(async {}));
        task.await.map_err(|e| Error::Io {
            context: "example API task".to_owned(),
            source: std::io::Error::other(e.to_string()),
        })
    }
}

impl Drop for ExampleApi {
    fn drop(&mut self) {
        self.task.abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_parses_and_names_the_server() {
        let spec = library_spec("http://127.0.0.1:1234/");
        assert_eq!(spec["servers"][0]["url"], "http://127.0.0.1:1234");
        assert_eq!(spec["paths"].as_object().map(|p| p.len()), Some(10));
    }

    #[test]
    fn dates_walk_the_calendar() {
        assert_eq!(date(0), "2025-01-01");
        assert_eq!(date(31), "2025-02-01");
        assert_eq!(date(365), "2026-01-01");
    }
}
