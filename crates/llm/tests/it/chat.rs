//! The chat client against a loopback server: tool calling, text-mode ReAct, bad answers.

use serde_json::json;
use toolsmith_llm::{
    ChatModel, ChatRequest, Error, Message, OpenAiClient, Role, Sampling, ToolChoice, ToolSpec,
};

use crate::support::{Canned, MockServer, TEST_KEY, completion, tool_completion};

fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "get_weather".into(),
            description: "Weather in a city".into(),
            parameters: json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
        },
        ToolSpec {
            name: "get_time".into(),
            description: "Local time in a city".into(),
            parameters: json!({"type": "object", "properties": {"city": {"type": "string"}}}),
        },
    ]
}

#[tokio::test]
async fn two_parallel_tool_calls_keep_their_ids_through_the_round_trip() -> anyhow::Result<()> {
    let server = MockServer::start([
        Canned::json(tool_completion(&[
            ("call_weather_7", "get_weather", r#"{"city": "Paris"}"#),
            ("call_time_9", "get_time", r#"{"city": "Tokyo"}"#),
        ])),
        Canned::json(completion("Sunny in Paris; 21:00 in Tokyo.")),
    ])
    .await;
    let client = OpenAiClient::new(&server.settings())?;
    let mut req = ChatRequest::new(
        Role::agent(),
        vec![
            Message::system("You use tools."),
            Message::user("Weather in Paris and time in Tokyo?"),
        ],
    )
    .with_tools(tools(), Some(ToolChoice::Auto));

    let first = client.chat(&req).await?;
    assert_eq!(first.tool_calls.len(), 2);
    assert_eq!(first.tool_calls[0].id, "call_weather_7");
    assert_eq!(first.tool_calls[0].name, "get_weather");
    assert_eq!(
        first.tool_calls[0].parsed_arguments()?,
        json!({"city": "Paris"})
    );
    assert_eq!(first.tool_calls[1].id, "call_time_9");
    assert_eq!(
        first.tool_calls[1].parsed_arguments()?,
        json!({"city": "Tokyo"})
    );
    assert!(first.unknown_tool_calls(&req).is_empty());
    assert_eq!(first.usage.prompt_tokens, 20);
    assert!(!first.usage.estimated);

    // Answer in the opposite order: the ids, not the positions, link results to calls.
    req.messages.push(first.to_message());
    req.messages.push(Message::tool("call_time_9", "21:00"));
    req.messages.push(Message::tool("call_weather_7", "sunny"));
    let second = client.chat(&req).await?;
    assert_eq!(second.text(), "Sunny in Paris; 21:00 in Tokyo.");

    let bodies = server.requests();
    assert_eq!(bodies.len(), 2);
    assert_eq!(bodies[0]["tools"][1]["function"]["name"], "get_time");
    assert_eq!(bodies[0]["tool_choice"], "auto");
    assert_eq!(bodies[0]["model"], "test-model");
    let msgs = &bodies[1]["messages"];
    assert_eq!(msgs[2]["role"], "assistant");
    assert_eq!(msgs[2]["tool_calls"][0]["id"], "call_weather_7");
    assert_eq!(
        msgs[2]["tool_calls"][1]["function"]["arguments"],
        r#"{"city": "Tokyo"}"#
    );
    assert_eq!(
        msgs[3],
        json!({"role": "tool", "tool_call_id": "call_time_9", "content": "21:00"})
    );
    assert_eq!(msgs[4]["tool_call_id"], "call_weather_7");
    assert_eq!(
        server.auth_headers()[0].as_deref(),
        Some(format!("Bearer {TEST_KEY}").as_str())
    );
    Ok(())
}

#[tokio::test]
async fn bad_tool_calls_are_data_not_failures() -> anyhow::Result<()> {
    let server = MockServer::start([Canned::json(tool_completion(&[
        ("c1", "get_weather", r#"{"city": "Par"#),
        ("c2", "launch_rockets", "{}"),
    ]))])
    .await;
    let client = OpenAiClient::new(&server.settings())?;
    let req = ChatRequest::new("agent", vec![Message::user("weather?")])
        .with_tools(tools(), Some(ToolChoice::Required));
    let r = client.chat(&req).await?;
    let err = r.tool_calls[0].parsed_arguments().unwrap_err();
    assert_eq!(err.raw, r#"{"city": "Par"#);
    assert_eq!(err.call_id, "c1");
    let unknown: Vec<&str> = r
        .unknown_tool_calls(&req)
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(unknown, ["launch_rockets"]);
    assert_eq!(server.requests()[0]["tool_choice"], "required");
    Ok(())
}

#[tokio::test]
async fn named_tool_choice_and_sampling_reach_the_server() -> anyhow::Result<()> {
    let server =
        MockServer::start([Canned::json(tool_completion(&[("c1", "get_time", "{}")]))]).await;
    let client = OpenAiClient::new(&server.settings())?;
    let req = ChatRequest::new("agent", vec![Message::user("time?")])
        .with_tools(tools(), Some(ToolChoice::Tool("get_time".into())))
        .with_sampling(Sampling {
            temperature: Some(0.2),
            top_p: Some(0.9),
            seed: Some(42),
            max_tokens: Some(64),
            stop: vec![],
        });
    client.chat(&req).await?;
    let body = &server.requests()[0];
    assert_eq!(
        body["tool_choice"],
        json!({"type": "function", "function": {"name": "get_time"}})
    );
    assert_eq!(body["seed"], 42);
    assert_eq!(body["max_tokens"], 64);
    assert!((body["top_p"].as_f64().unwrap() - 0.9).abs() < 1e-6);
    Ok(())
}

#[tokio::test]
async fn malformed_and_cut_off_answers_are_typed_errors() -> anyhow::Result<()> {
    let cut = json!({"model": "test-model", "choices": [{"message": {"content": "The answer is"}, "finish_reason": "length"}],
                     "usage": {"prompt_tokens": 5, "completion_tokens": 16}});
    let server = MockServer::start([
        Canned::status(200, "<html><body>Welcome to nginx!</body></html>")
            .header("content-type", "text/html"),
        Canned::json(json!({"choices": []})),
        Canned::json(cut),
    ])
    .await;
    let client = OpenAiClient::new(&server.settings())?;
    let req = ChatRequest::new("agent", vec![Message::user("hi")]);

    let html = client.chat(&req).await.unwrap_err();
    assert!(
        matches!(html, Error::MalformedResponse { ref body_start, ref url, .. } if body_start.contains("nginx") && url.ends_with("/v1/chat/completions")),
        "{html}"
    );
    assert!(!html.is_retryable());
    let empty = client.chat(&req).await.unwrap_err();
    assert!(
        matches!(empty, Error::MalformedResponse { ref reason, .. } if reason.contains("no choices")),
        "{empty}"
    );
    let truncated = client.chat(&req).await.unwrap_err();
    match truncated {
        Error::Truncated {
            partial,
            completion_tokens,
            ..
        } => {
            assert_eq!(partial.as_deref(), Some("The answer is"));
            assert_eq!(completion_tokens, 16);
        }
        other => panic!("expected Truncated, got {other}"),
    }
    assert_eq!(server.hits(), 3, "none of these is retried");
    Ok(())
}

#[tokio::test]
async fn missing_usage_is_counted_locally() -> anyhow::Result<()> {
    let server = MockServer::start([Canned::json(
        json!({"choices": [{"message": {"content": "hello world"}, "finish_reason": "stop"}]}),
    )])
    .await;
    let client = OpenAiClient::new(&server.settings())?;
    let r = client
        .chat(&ChatRequest::new(
            "agent",
            vec![Message::user("say hello world")],
        ))
        .await?;
    assert!(r.usage.estimated);
    assert_eq!(r.usage.completion_tokens, 2);
    assert!(r.usage.prompt_tokens >= 3);
    assert_eq!(r.model, "test-model", "falls back to the requested model");
    Ok(())
}

#[tokio::test]
async fn each_role_can_use_its_own_model() -> anyhow::Result<()> {
    let server =
        MockServer::start([Canned::json(completion("a")), Canned::json(completion("b"))]).await;
    let mut settings = server.settings();
    settings
        .role_models
        .insert(Role::new(Role::JUDGE), "judge-model".into());
    let client = OpenAiClient::new(&settings)?;
    client
        .chat(&ChatRequest::new(Role::JUDGE, vec![Message::user("grade")]))
        .await?;
    client
        .chat(&ChatRequest::new(Role::AGENT, vec![Message::user("act")]))
        .await?;
    let bodies = server.requests();
    assert_eq!(bodies[0]["model"], "judge-model");
    assert_eq!(bodies[1]["model"], "test-model");
    assert_eq!(client.model_for(&Role::new(Role::JUDGE)), "judge-model");
    Ok(())
}
