//! Retries, backoff, `Retry-After`, errors that must not be retried, the in-flight bound.

use std::time::Duration;

use toolsmith_llm::{ChatModel, ChatRequest, Error, Message, OpenAiClient, RetrySettings};

use crate::support::{Canned, MockServer, TEST_KEY, completion};

fn req() -> ChatRequest {
    ChatRequest::new("agent", vec![Message::user("hello")])
}

#[tokio::test]
async fn a_429_with_retry_after_waits_then_retries_once() -> anyhow::Result<()> {
    let server = MockServer::start([
        Canned::status(429, r#"{"error": {"message": "Rate limit reached"}}"#)
            .header("retry-after", "0"),
        Canned::json(completion("ok")),
    ])
    .await;
    // A backoff of an hour: only the server's `Retry-After: 0` lets the retry come at once.
    let mut settings = server.settings();
    settings.retry = RetrySettings {
        initial_backoff_ms: 3_600_000,
        max_backoff_ms: 3_600_000,
        ..settings.retry
    };
    let client = OpenAiClient::new(&settings)?;
    // The deadline only guards against that hour-long hang.
    let r = tokio::time::timeout(Duration::from_secs(120), client.chat(&req()))
        .await
        .map_err(|_| anyhow::anyhow!("Retry-After ignored: the backoff of an hour ran"))??;
    assert_eq!(r.text(), "ok");
    assert_eq!(server.hits(), 2, "one retry");
    Ok(())
}

#[tokio::test]
async fn server_errors_are_retried_up_to_the_limit() -> anyhow::Result<()> {
    let server = MockServer::start([])
        .await
        .always(Canned::status(500, "internal error"));
    let mut settings = server.settings();
    settings.retry = RetrySettings {
        max_retries: 2,
        initial_backoff_ms: 1,
        max_backoff_ms: 2,
        ..RetrySettings::DEFAULT
    };
    let client = OpenAiClient::new(&settings)?;
    let err = client.chat(&req()).await.unwrap_err();
    match &err {
        Error::GaveUp { attempts, last } => {
            assert_eq!(*attempts, 3);
            assert!(
                matches!(**last, Error::Status { status: 500, ref message, .. } if message == "internal error"),
                "{last}"
            );
        }
        other => panic!("expected GaveUp, got {other:?}"),
    }
    assert_eq!(err.status(), Some(500));
    assert!(!err.is_retryable(), "already retried");
    assert_eq!(server.hits(), 3, "first attempt + 2 retries");
    Ok(())
}

#[tokio::test]
async fn a_401_is_not_retried_and_leaks_no_key() -> anyhow::Result<()> {
    let server = MockServer::start([]).await.always(Canned::status(
        401,
        r#"{"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}}"#,
    ));
    let client = OpenAiClient::new(&server.settings())?;
    let err = client.chat(&req()).await.unwrap_err();
    assert!(
        matches!(err, Error::Status { status: 401, ref message, ref url, .. } if message == "Incorrect API key provided" && url.ends_with("/v1/chat/completions")),
        "{err:?}"
    );
    assert!(!err.is_retryable());
    assert_eq!(server.hits(), 1);
    let shown = format!("{err} {err:?}");
    assert!(!shown.contains(TEST_KEY), "{shown}");
    assert!(!format!("{client:?}").contains(TEST_KEY));
    Ok(())
}

#[tokio::test]
async fn a_slow_server_times_out_and_is_retried() -> anyhow::Result<()> {
    let server = MockServer::start([
        Canned::json(completion("late")).delayed(Duration::from_millis(2_000)),
        Canned::json(completion("fast")),
    ])
    .await;
    let mut settings = server.settings();
    settings.request_timeout_ms = 500;
    let client = OpenAiClient::new(&settings)?;
    let r = client.chat(&req()).await?;
    assert_eq!(r.text(), "fast");
    assert_eq!(server.hits(), 2);

    settings.retry = RetrySettings::NONE;
    let server =
        MockServer::start([Canned::json(completion("late")).delayed(Duration::from_millis(2_000))])
            .await;
    settings.base_url = server.base_url.clone();
    let client = OpenAiClient::new(&settings)?;
    let err = client.chat(&req()).await.unwrap_err();
    assert!(
        matches!(err, Error::GaveUp { attempts: 1, ref last } if matches!(**last, Error::Timeout { .. })),
        "{err:?}"
    );
    Ok(())
}

#[tokio::test]
async fn a_refused_connection_is_a_retryable_connection_error() -> anyhow::Result<()> {
    // Bind then drop a listener: the port is free and nothing answers on it.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0")?;
        l.local_addr()?.port()
    };
    let settings = toolsmith_llm::LlmSettings {
        base_url: format!("http://127.0.0.1:{port}/v1"),
        retry: RetrySettings {
            max_retries: 1,
            initial_backoff_ms: 1,
            max_backoff_ms: 1,
            ..RetrySettings::DEFAULT
        },
        ..toolsmith_llm::LlmSettings::default()
    };
    let err = OpenAiClient::new(&settings)?
        .chat(&req())
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::GaveUp { attempts: 2, ref last } if matches!(**last, Error::Connection { .. })),
        "{err:?}"
    );
    Ok(())
}

#[tokio::test]
async fn requests_in_flight_are_bounded() -> anyhow::Result<()> {
    let server = MockServer::start([])
        .await
        .always(Canned::json(completion("ok")).delayed(Duration::from_millis(150)));
    let mut settings = server.settings();
    settings.max_in_flight = 2;
    let client = OpenAiClient::new(&settings)?;
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..6 {
        let client = client.clone();
        tasks.spawn(async move { client.chat(&req()).await.map(|r| r.text().to_owned()) });
    }
    while let Some(done) = tasks.join_next().await {
        assert_eq!(done??, "ok");
    }
    assert_eq!(server.hits(), 6);
    assert_eq!(server.max_in_flight(), 2);
    Ok(())
}

#[tokio::test]
async fn a_request_over_the_configured_context_is_refused_before_it_is_sent() -> anyhow::Result<()>
{
    let server = MockServer::start([])
        .await
        .always(Canned::json(completion("ok")));
    let mut settings = server.settings();
    settings.context_tokens = Some(1_000);
    let client = OpenAiClient::new(&settings)?;
    let big = ChatRequest::new("judge", vec![Message::user("hello world ".repeat(2_000))]);
    let err = client.chat(&big).await.unwrap_err();
    assert!(
        matches!(err, Error::ContextExceeded { context_tokens: 1_000, prompt_tokens, .. } if prompt_tokens > 1_000),
        "{err:?}"
    );
    assert!(err.to_string().contains("was not sent"), "{err}");
    // A request that fits goes through; the server saw only that one.
    assert!(client.chat(&req()).await.is_ok());
    assert_eq!(server.requests().len(), 1);
    Ok(())
}
