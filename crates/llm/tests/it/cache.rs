//! The SQLite response cache: hits, misses, replay, byte-for-byte answers.

use toolsmith_llm::{
    CacheDb, CacheMode, CachedChat, ChatModel, ChatRequest, Error, Message, OpenAiClient, Prompt,
};

use crate::support::{Canned, MockServer, completion};

fn req(text: &str) -> ChatRequest {
    ChatRequest::new(
        "agent",
        vec![Message::system("Be brief."), Message::user(text)],
    )
}

#[tokio::test]
async fn a_hit_is_served_from_the_cache_byte_for_byte() -> anyhow::Result<()> {
    let server = MockServer::start([])
        .await
        .always(Canned::json(completion("cached answer")));
    let dir = tempfile::tempdir()?;
    let db = CacheDb::open(dir.path().join("toolsmith.db"))?;
    let llm = CachedChat::new(
        OpenAiClient::new(&server.settings())?,
        db.clone(),
        CacheMode::ReadWrite,
    );

    let miss = llm.chat(&req("What is 2+2?")).await?;
    assert!(!miss.cache_hit);
    let hit = llm.chat(&req("What is 2+2?")).await?;
    assert!(hit.cache_hit);
    assert_eq!(server.hits(), 1, "the server saw exactly one request");
    assert_eq!(hit.raw, miss.raw, "the raw body comes back byte for byte");
    assert_eq!(hit.raw, completion("cached answer").to_string());
    assert_eq!(hit.text(), "cached answer");
    assert_eq!(hit.usage, miss.usage);

    // A different message is a miss.
    llm.chat(&req("What is 3+3?")).await?;
    assert_eq!(server.hits(), 2);
    assert_eq!(db.chat_entries().await?, 2);

    // The cache survives reopening the file.
    drop(llm);
    let reopened = CachedChat::new(
        OpenAiClient::new(&server.settings())?,
        CacheDb::open(dir.path().join("toolsmith.db"))?,
        CacheMode::Replay,
    );
    assert!(reopened.chat(&req("What is 2+2?")).await?.cache_hit);
    assert_eq!(server.hits(), 2);
    Ok(())
}

#[tokio::test]
async fn replay_misses_name_the_model_and_the_message() -> anyhow::Result<()> {
    let server = MockServer::start([]).await;
    let llm = CachedChat::new(
        OpenAiClient::new(&server.settings())?,
        CacheDb::in_memory()?,
        CacheMode::Replay,
    );
    let err = llm
        .chat(&req("Which tool lists the playlists of a user?"))
        .await
        .unwrap_err();
    match &err {
        Error::ReplayMiss {
            model,
            last_message_start,
        } => {
            assert_eq!(model, "test-model");
            assert!(last_message_start.starts_with("Which tool lists"));
        }
        other => panic!("expected ReplayMiss, got {other:?}"),
    }
    assert!(err.to_string().contains("test-model"), "{err}");
    assert_eq!(server.hits(), 0, "replay never calls the server");
    Ok(())
}

#[tokio::test]
async fn off_mode_and_errors_are_never_cached() -> anyhow::Result<()> {
    let server = MockServer::start([
        Canned::status(400, "bad request"),
        Canned::json(completion("a")),
        Canned::json(completion("b")),
    ])
    .await;
    let db = CacheDb::in_memory()?;
    let client = OpenAiClient::new(&server.settings())?;
    let cached = CachedChat::new(client.clone(), db.clone(), CacheMode::ReadWrite);
    assert!(cached.chat(&req("x")).await.is_err());
    assert!(
        !cached.chat(&req("x")).await?.cache_hit,
        "the error was not cached"
    );
    let off = CachedChat::new(client, db.clone(), CacheMode::Off);
    assert_eq!(off.chat(&req("x")).await?.text(), "b");
    assert_eq!(server.hits(), 3);
    assert_eq!(db.chat_entries().await?, 1);
    Ok(())
}

#[tokio::test]
async fn an_edited_prompt_misses_the_cache() -> anyhow::Result<()> {
    let server = MockServer::start([])
        .await
        .always(Canned::json(completion("ok")));
    let llm = CachedChat::new(
        OpenAiClient::new(&server.settings())?,
        CacheDb::in_memory()?,
        CacheMode::ReadWrite,
    );
    let v1 = Prompt::new("test/ask", "Ask {{ q }}");
    let v2 = Prompt::new("test/ask", "Please ask {{ q }}");
    let text = "same rendered text";
    llm.chat(&req(text).with_prompt(&v1)).await?;
    assert!(llm.chat(&req(text).with_prompt(&v1)).await?.cache_hit);
    assert!(!llm.chat(&req(text).with_prompt(&v2)).await?.cache_hit);
    assert_eq!(server.hits(), 2);
    Ok(())
}
