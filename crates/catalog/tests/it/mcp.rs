//! MCP tool lists: detected, imported as one tool of function APIs, and
//! our own `export::mcp_tools` reads back as the same arguments.

use serde_json::json;
use toolsmith_catalog::testing::tmdb_catalog;
use toolsmith_catalog::{
    DocSelector, Endpoint, Format, ImportOptions, Scope, Store, export, read_bytes, read_source,
};

use crate::data::write_temp;

#[test]
fn a_tool_list_file_is_detected_and_imported() {
    let list = json!({"tools": [
        {"name": "echo", "description": "Says it back.",
         "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}
    ]});
    let (_dir, path) = write_temp("echo_server.json", &list.to_string());
    let batch = read_source(&path, &ImportOptions::default()).unwrap();
    assert_eq!(batch.format, Some(Format::McpTools));
    let mut store = Store::in_memory().unwrap();
    store
        .import(&batch, toolsmith_catalog::Activate::IfNoneActive)
        .unwrap();
    let api = store.api(&"echo_server/echo".parse().unwrap()).unwrap();
    assert_eq!(
        api.api.endpoint,
        Endpoint::Function {
            name: "echo".into()
        }
    );
    assert_eq!(api.description(), "Says it back.");
    assert!(api.api.params[0].required);
}

#[test]
fn reimporting_a_changed_list_updates_the_tool_in_place() {
    let options = ImportOptions {
        tool: Some("demo".to_owned()),
        base_url: Some("mcp+http://127.0.0.1:9/mcp".to_owned()),
        ..ImportOptions::default()
    };
    let one = json!({"tools": [{"name": "a", "inputSchema": {"type": "object"}}]});
    let two = json!({"tools": [{"name": "a", "inputSchema": {"type": "object"}},
                               {"name": "b", "inputSchema": {"type": "object"}}]});
    let mut store = Store::in_memory().unwrap();
    let name = std::path::Path::new("mcp+http://127.0.0.1:9/mcp");
    store
        .import(
            &read_bytes(name, one.to_string().as_bytes(), &options).unwrap(),
            toolsmith_catalog::Activate::IfNoneActive,
        )
        .unwrap();
    let report = store
        .import(
            &read_bytes(name, two.to_string().as_bytes(), &options).unwrap(),
            toolsmith_catalog::Activate::IfNoneActive,
        )
        .unwrap();
    assert_eq!(
        (report.tools_added, report.apis_added),
        (0, 1),
        "{report:?}"
    );
    let tool = store.tool(&"demo".parse().unwrap()).unwrap();
    assert_eq!(tool.base_url.as_deref(), Some("mcp+http://127.0.0.1:9/mcp"));
    let view = store
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    assert_eq!(view.api_count(), 2);
}

#[test]
fn our_mcp_export_reads_back_with_the_same_arguments() {
    let view = tmdb_catalog();
    let exported = export::mcp_tools(&view);
    let options = ImportOptions {
        tool: Some("tmdb_mcp".to_owned()),
        ..ImportOptions::default()
    };
    let batch = read_bytes(
        std::path::Path::new("tmdb.mcp.json"),
        exported.to_string().as_bytes(),
        &options,
    )
    .unwrap();
    assert_eq!(batch.format, Some(Format::McpTools));
    let mut again = Store::in_memory().unwrap();
    again
        .import(&batch, toolsmith_catalog::Activate::IfNoneActive)
        .unwrap();
    let view2 = again
        .catalog(&DocSelector::Active, &Scope::default())
        .unwrap();
    assert_eq!(view2.api_count(), view.api_count());
    for (_, original) in view.apis() {
        let function = export::function_name(&original.api.id);
        let (_, back) = view2
            .apis()
            .find(|(_, a)| a.api.source_name == function)
            .unwrap_or_else(|| panic!("{function} did not come back"));
        assert_eq!(
            back.api.endpoint,
            Endpoint::Function {
                name: function.clone()
            }
        );
        assert_eq!(
            export::input_schema(back),
            export::input_schema(original),
            "{function}"
        );
        assert_eq!(back.description(), original.description(), "{function}");
    }
    // And once more: the re-imported catalog exports the same list.
    let exported_again = export::mcp_tools(&view2);
    let schemas = |v: &serde_json::Value| -> Vec<serde_json::Value> {
        v["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["inputSchema"].clone())
            .collect()
    };
    assert_eq!(schemas(&exported_again), schemas(&exported));
}
