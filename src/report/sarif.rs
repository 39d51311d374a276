//! `--format sarif`: a SARIF 2.1.0 log for code-scanning uploads. Every code is a rule;
//! columns are Unicode code points, as everywhere else in our output.

use serde_json::{Value, json};

use crate::check::CheckedProject;
use crate::diagnostics::{Code, Diagnostic, Severity};

pub fn render(checked: &CheckedProject) -> String {
    let rules: Vec<Value> = Code::ALL
        .iter()
        .map(|code| {
            json!({
                "id": code.as_str(),
                "shortDescription": { "text": code.summary() },
                "defaultConfiguration": { "level": level(code.severity()) },
            })
        })
        .collect();
    let results: Vec<Value> = checked.diagnostics.iter().map(result).collect();
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "agent-sdk",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    });
    let mut out = serde_json::to_string_pretty(&log).expect("a JSON value serialises");
    out.push('\n');
    out
}

fn result(diagnostic: &Diagnostic) -> Value {
    let rule_index = Code::ALL.iter().position(|code| *code == diagnostic.code);
    let mut locations = Vec::new();
    if let Some(path) = &diagnostic.path {
        let mut location = json!({ "artifactLocation": { "uri": crate::uri::encode_path(path) } });
        if let Some(label) = &diagnostic.label {
            location["region"] = json!({
                "startLine": label.start_at.line,
                "startColumn": label.start_at.column,
                "endLine": label.end_at.line,
                "endColumn": label.end_at.column,
            });
        }
        locations.push(json!({ "physicalLocation": location }));
    }
    json!({
        "ruleId": diagnostic.code.as_str(),
        "ruleIndex": rule_index,
        "level": level(diagnostic.severity()),
        "message": { "text": format!("{}\nhelp: {}", diagnostic.message, diagnostic.help) },
        "locations": locations,
    })
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Advice => "note",
    }
}
