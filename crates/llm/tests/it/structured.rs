//! Structured output: extraction, repair with the parse error, and the final typed error.

use serde::Deserialize;
use serde_json::json;
use toolsmith_llm::testing::{Reply, ScriptedLlm};
use toolsmith_llm::{ChatRequest, Error, Message, OpenAiClient, StructuredSettings, ask_json};

use crate::support::{Canned, MockServer, completion};

#[derive(Debug, Deserialize, PartialEq)]
struct Grade {
    score: u8,
    reason: String,
}

fn req() -> ChatRequest {
    ChatRequest::new(
        "judge",
        vec![Message::user(
            "Grade the answer. Reply with JSON {\"score\": 1-5, \"reason\": \"...\"}.",
        )],
    )
}

#[tokio::test]
async fn one_bad_answer_is_repaired_with_the_parse_error() -> anyhow::Result<()> {
    let server = MockServer::start([
        Canned::json(completion("I would give it a four, it is mostly right.")),
        Canned::json(completion(
            "```json\n{\"score\": 4, \"reason\": \"mostly right\"}\n```",
        )),
    ])
    .await;
    let client = OpenAiClient::new(&server.settings())?;
    let settings = StructuredSettings {
        json_mode: true,
        ..StructuredSettings::default()
    };
    let got = ask_json::<Grade, _>(&client, req(), &settings).await?;
    assert_eq!(
        got.value,
        Grade {
            score: 4,
            reason: "mostly right".into()
        }
    );
    assert_eq!(got.attempts, 2);

    let bodies = server.requests();
    assert_eq!(bodies.len(), 2);
    assert_eq!(bodies[0]["response_format"], json!({"type": "json_object"}));
    let second = bodies[1]["messages"].as_array().unwrap();
    assert_eq!(second.len(), 3, "question, bad answer, repair request");
    assert_eq!(second[1]["role"], "assistant");
    assert_eq!(
        second[1]["content"],
        "I would give it a four, it is mostly right."
    );
    let repair = second[2]["content"].as_str().unwrap();
    assert_eq!(second[2]["role"], "user");
    assert!(
        repair.contains("no JSON value found"),
        "the parse error is quoted: {repair}"
    );
    Ok(())
}

#[tokio::test]
async fn shape_errors_are_repaired_too_and_name_the_field() -> anyhow::Result<()> {
    let llm = ScriptedLlm::new([
        Reply::text("{\"score\": 4}"),
        Reply::text("{\"score\": 4, \"reason\": \"ok\"}"),
    ]);
    let got = ask_json::<Grade, _>(&llm, req(), &StructuredSettings::default()).await?;
    assert_eq!(got.value.reason, "ok");
    assert!(
        llm.requests()[1].last_message().contains("reason"),
        "{}",
        llm.requests()[1].last_message()
    );
    Ok(())
}

#[tokio::test]
async fn python_literals_are_accepted() -> anyhow::Result<()> {
    #[derive(Debug, Deserialize)]
    struct Flags {
        useful: bool,
        note: Option<String>,
        tags: Vec<String>,
    }
    let llm = ScriptedLlm::new([Reply::text(
        "Here you go:\n```python\n{'useful': True, 'note': None, 'tags': ['search', 'movies',],}\n```",
    )]);
    let got = ask_json::<Flags, _>(&llm, req(), &StructuredSettings::default()).await?;
    assert!(got.value.useful);
    assert_eq!(got.value.note, None);
    assert_eq!(got.value.tags, ["search", "movies"]);
    assert_eq!(got.attempts, 1);
    Ok(())
}

#[tokio::test]
async fn giving_up_keeps_the_last_raw_reply() -> anyhow::Result<()> {
    let llm = ScriptedLlm::new([
        Reply::text("no"),
        Reply::text("still no"),
        Reply::text("{'score': 'five'}"),
    ]);
    let err = ask_json::<Grade, _>(&llm, req(), &StructuredSettings::default())
        .await
        .unwrap_err();
    match err {
        Error::Structured {
            attempts,
            last_reply,
            reason,
            type_name,
        } => {
            assert_eq!(attempts, 3, "one ask and the default 2 repairs");
            assert_eq!(last_reply, "{'score': 'five'}");
            assert!(reason.contains("expected"), "{reason}");
            assert!(type_name.ends_with("Grade"));
        }
        other => panic!("expected Structured, got {other:?}"),
    }
    llm.assert_finished();
    Ok(())
}
