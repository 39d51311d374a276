//! The VS Code extension (`editors/vscode/`) as `package.sh` packages it, offline: one bundled
//! JavaScript file and the settings schema in the `.vsix`, a manifest that activates it only
//! where there are hooks or settings, its commands and the JSON-with-comments mapping of
//! `agent-sdk.json`, and the bundle loaded by Node against a fake `vscode` module
//! (`tests/vscode/extension.js`) to see that restarts leave no listener behind.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use globset::{GlobBuilder, GlobSetBuilder};
use serde_json::{Value, json};

use crate::common::root;

/// The packaged extension: every file of the `.vsix` by its name in the archive.
struct Vsix {
    files: BTreeMap<String, Vec<u8>>,
    /// The archive unpacked (for Node to load `extension/out/extension.js`).
    unpacked: PathBuf,
}

impl Vsix {
    fn manifest(&self) -> Value {
        serde_json::from_slice(&self.files["extension/package.json"]).unwrap()
    }
}

/// `editors/vscode/package.sh` run once for the tests here, in a copy laid out as the
/// repository is (`editors/vscode/` and `agent-sdk.schema.json` two folders up), so that the
/// repository's folder gets no `out/` nor `.vsix`.
fn vsix() -> &'static Vsix {
    static VSIX: OnceLock<Vsix> = OnceLock::new();
    VSIX.get_or_init(|| {
        let source = root().join("editors/vscode");
        assert!(
            source.join("node_modules/.bin/vsce").exists() && source.join("node_modules/.bin/esbuild").exists(),
            "run `npm ci --prefix editors/vscode` (scripts/test-setup)"
        );
        let scratch = Path::new(env!("CARGO_TARGET_TMPDIR")).join("vscode-extension");
        let _ = std::fs::remove_dir_all(&scratch);
        let copy = scratch.join("editors/vscode");
        let skipped = |entry: &walkdir::DirEntry| {
            let name = entry.file_name().to_string_lossy();
            name == "node_modules" || name == "out" || name.ends_with(".vsix")
        };
        for entry in walkdir::WalkDir::new(&source).into_iter().filter_entry(|entry| !skipped(entry)) {
            let entry = entry.unwrap();
            let target = copy.join(entry.path().strip_prefix(&source).unwrap());
            if entry.file_type().is_dir() {
                std::fs::create_dir_all(&target).unwrap();
            } else {
                std::fs::copy(entry.path(), &target).unwrap();
            }
        }
        std::fs::copy(root().join("agent-sdk.schema.json"), scratch.join("agent-sdk.schema.json")).unwrap();
        std::os::unix::fs::symlink(source.join("node_modules"), copy.join("node_modules")).unwrap();
        let packaged = Command::new(copy.join("package.sh"))
            .env("npm_config_offline", "true")
            .env("npm_config_update_notifier", "false")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(packaged.status.success(), "{}", String::from_utf8_lossy(&packaged.stderr));
        let unpacked = scratch.join("unpacked");
        let unzip = "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])";
        let status = Command::new("python3")
            .args(["-c", unzip])
            .arg(copy.join("agent-sdk.vsix"))
            .arg(&unpacked)
            .status()
            .unwrap();
        assert!(status.success());
        let files = walkdir::WalkDir::new(&unpacked)
            .into_iter()
            .map(Result::unwrap)
            .filter(|entry| entry.file_type().is_file())
            .map(|entry| {
                let name = entry.path().strip_prefix(&unpacked).unwrap().to_string_lossy().into_owned();
                (name, std::fs::read(entry.path()).unwrap())
            })
            .collect();
        Vsix { files, unpacked }
    })
}

/// The `.vsix` holds the bundle (the extension and the language client in one file), the
/// schema its `jsonValidation` names, the manifest and the README: no `node_modules`, no
/// TypeScript source.
#[test]
fn the_vscode_extension_packages_to_one_bundled_file_the_schema_and_its_manifest() {
    let vsix = vsix();
    let names: Vec<&str> = vsix.files.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "[Content_Types].xml",
            "extension.vsixmanifest",
            "extension/out/agent-sdk.schema.json",
            "extension/out/extension.js",
            "extension/package.json",
            "extension/readme.md",
        ]
    );
    let manifest = vsix.manifest();
    assert_eq!(manifest["main"], "./out/extension.js");
    // Bundled: nothing is left for VS Code to resolve but its own API and Node's.
    assert_eq!(manifest.get("dependencies"), None, "{manifest:#}");
    let bundle = String::from_utf8_lossy(&vsix.files["extension/out/extension.js"]);
    let mut required: Vec<&str> =
        bundle.split("require(\"").skip(1).filter_map(|rest| rest.split_once('"')).map(|(module, _)| module).collect();
    required.sort_unstable();
    required.dedup();
    let builtin = ["child_process", "crypto", "fs", "net", "node:fs", "node:path", "os", "path", "readline", "util"];
    assert!(
        required.iter().all(|module| *module == "vscode" || builtin.contains(module)),
        "the bundle requires modules the .vsix does not hold: {required:?}"
    );
    assert_eq!(manifest["contributes"]["configuration"]["properties"]["agentSdk.path"]["type"], "string");

    assert_eq!(
        manifest["contributes"]["commands"],
        json!([
            { "command": "agentSdk.restartServer", "title": "Restart Server", "category": "agent-sdk" },
            { "command": "agentSdk.showOutput", "title": "Show Output", "category": "agent-sdk" },
        ])
    );
    // agent-sdk.json takes comments and trailing commas, so VS Code must not flag them as JSON.
    assert_eq!(manifest["contributes"]["languages"], json!([{ "id": "jsonc", "filenames": ["agent-sdk.json"] }]));
    let validation = &manifest["contributes"]["jsonValidation"];
    assert_eq!(validation[0]["fileMatch"], json!(["agent-sdk.json", "agent-sdk.jsonc"]), "{validation:#}");
    let schema_in_vsix = format!("extension/{}", validation[0]["url"].as_str().unwrap().trim_start_matches("./"));
    assert_eq!(
        vsix.files.get(&schema_in_vsix).map(Vec::as_slice),
        Some(std::fs::read(root().join("agent-sdk.schema.json")).unwrap().as_slice()),
        "{schema_in_vsix} is not the repository's agent-sdk.schema.json"
    );
}

/// The extension activates in a workspace with a hooks folder (`bot/hooks/`, `agent/hooks/`)
/// or a settings file, and not in every TypeScript workspace. VS Code matches a
/// `workspaceContains:` glob against the workspace's files, not its folders, with `*` never
/// crossing a `/`: so does this test.
#[test]
fn the_vscode_extension_activates_only_where_there_are_hooks_or_settings() {
    let manifest = vsix().manifest();
    let events: Vec<&str> =
        manifest["activationEvents"].as_array().unwrap().iter().map(|e| e.as_str().unwrap()).collect();
    let globs: Vec<&str> = events
        .iter()
        .map(|event| {
            event.strip_prefix("workspaceContains:").unwrap_or_else(|| panic!("{event} is not workspaceContains"))
        })
        .collect();
    let mut set = GlobSetBuilder::new();
    for glob in &globs {
        set.add(GlobBuilder::new(glob).literal_separator(true).build().unwrap());
    }
    let set = set.build().unwrap();
    let activates = |workspace: &Path| files_of(workspace).iter().any(|file| set.is_match(file));

    for (group, case) in [("validate", "accepted-forms"), ("validate", "invalid-package-json"), ("config", "monorepo")]
    {
        assert!(activates(&root().join("fixtures").join(group).join(case)), "{group}/{case}: {globs:?}");
    }
    let (_temp, settings_only) = workspace(&[("agent-sdk.jsonc", "{}"), ("package.json", "{}")]);
    assert!(activates(&settings_only), "{globs:?}");
    let (_temp, typescript) =
        workspace(&[("package.json", "{}"), ("tsconfig.json", "{}"), ("src/index.ts", ""), ("src/hooks/a.ts", "")]);
    assert!(!activates(&typescript), "a TypeScript workspace without hooks activates it: {globs:?}");
}

/// Restarting the server (a changed `agentSdk.path`, the Restart Server command, a granted
/// workspace trust) replaces the client and nothing else: one listener of each event, one
/// file watcher and one output channel whatever the number of restarts, each restart one
/// start of the server, and everything gone once VS Code disposes what the extension gave it.
#[test]
fn the_bundled_vscode_extension_restarts_without_leaking_a_listener() {
    let vsix = vsix();
    let ran = Command::new(crate::common::node())
        .arg(root().join("tests/vscode/extension.js"))
        .arg(vsix.unpacked.join("extension/out/extension.js"))
        .stdin(Stdio::null())
        .output()
        .expect("node runs");
    assert!(ran.status.success(), "{}", String::from_utf8_lossy(&ran.stderr));
    let steps: Value = serde_json::from_slice(&ran.stdout).unwrap();
    let alive = |spawns: u32| {
        json!({
            "configurationListeners": 1,
            "trustListeners": 1,
            "watchers": 1,
            "outputChannels": ["agent-sdk"],
            "commands": ["agentSdk.restartServer", "agentSdk.showOutput"],
            "spawns": spawns,
        })
    };
    assert_eq!(steps["activated"], alive(1), "{steps:#}");
    assert_eq!(steps["afterThreeSettingChanges"], alive(4), "{steps:#}");
    assert_eq!(steps["afterAnUnrelatedSettingChange"], alive(4), "{steps:#}");
    assert_eq!(steps["afterTwoRestartCommands"], alive(6), "{steps:#}");
    assert_eq!(steps["afterTrustGranted"], alive(7), "{steps:#}");
    assert_eq!(steps["shown"], json!([1]), "Show Output shows the one channel: {steps:#}");
    let none = json!({
        "configurationListeners": 0,
        "trustListeners": 0,
        "watchers": 0,
        "outputChannels": [],
        "commands": [],
        "spawns": 7,
    });
    assert_eq!(steps["disposed"], none, "{steps:#}");
    assert!(steps["watched"][0].as_str().unwrap().contains("agent-sdk.jsonc"), "{steps:#}");
    // The binary does not exist: each start says so, and how to put it right.
    let errors = steps["errors"].as_array().unwrap();
    let ours = errors.iter().filter(|error| error.as_str().unwrap().contains("Install agent-sdk or set agentSdk.path"));
    assert_eq!(ours.count(), 7, "{steps:#}");
}

/// The files (not the folders) under `dir`, relative to it, with `/`: what a
/// `workspaceContains:` glob is matched against.
fn files_of(dir: &Path) -> Vec<String> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .map(Result::unwrap)
        .filter(|entry| entry.file_type().is_file())
        .map(|entry| entry.path().strip_prefix(dir).unwrap().to_string_lossy().into_owned())
        .collect()
}

/// A workspace folder holding `files` (path, text).
fn workspace(files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
    let temp = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let path = temp.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let dir = temp.path().to_path_buf();
    (temp, dir)
}
