//! The add-on packaging: `config.yaml` options and schema agree with each other and with what
//! the binary reads, every option is translated, and the run script turns an options file
//! into the same configuration as the equivalent config file.

use std::path::{Path, PathBuf};
use std::process::Command;

use homeclaw::config::{Config, Sources};
use serde_json::{Value, json};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn yaml(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    config::Config::builder()
        .add_source(config::File::from_str(&text, config::FileFormat::Yaml))
        .build()
        .unwrap()
        .try_deserialize()
        .unwrap()
}

/// Dotted paths of every key in nested objects; a list of objects contributes its first item's
/// keys under `path[]`.
fn paths(value: &Value, prefix: &str, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                let p = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                out.push(p.clone());
                paths(v, &p, out);
            }
        }
        Value::Array(items) => {
            if let Some(first @ Value::Object(_)) = items.first() {
                paths(first, &format!("{prefix}[]"), out);
            }
        }
        _ => {}
    }
}

fn all_paths(value: &Value) -> Vec<String> {
    let mut out = Vec::new();
    paths(value, "", &mut out);
    out
}

fn manifest() -> Value {
    yaml(&root().join("config.yaml"))
}

fn optional(schema: &Value, path: &str) -> bool {
    let mut node = schema;
    for part in path.split('.') {
        let (key, list) = part.strip_suffix("[]").map_or((part, false), |k| (k, true));
        node = &node[key];
        if list {
            node = &node[0];
        }
    }
    node.as_str().is_some_and(|t| t.ends_with('?'))
}

#[test]
fn the_manifest_names_the_add_on_and_its_version() {
    let m = manifest();
    assert_eq!(m["slug"], "homeclaw");
    assert_eq!(m["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(m["arch"], json!(["amd64", "aarch64"]));
    assert_eq!(m["services"], json!(["mqtt:want"]));
    assert_eq!(m["discovery"], json!(["wyoming"]));
}

#[test]
fn options_and_schema_agree() {
    let m = manifest();
    let options = all_paths(&m["options"]);
    let schema = all_paths(&m["schema"]);
    for p in &options {
        assert!(schema.contains(p), "option {p} has no schema");
    }
    // Options may omit a list's item fields (the list is empty) and optional settings.
    for p in &schema {
        let in_empty_list = p.contains("[]");
        assert!(
            options.contains(p) || optional(&m["schema"], p) || in_empty_list,
            "required schema key {p} has no default in options"
        );
    }
}

#[test]
fn every_schema_key_is_a_setting_the_binary_reads() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("options.json");
    std::fs::write(&empty, "{}").unwrap();
    let defaults = Config::load(&Sources {
        options_json: Some(empty),
        ..Default::default()
    })
    .unwrap();
    let mut binary = serde_json::to_value(&defaults).unwrap();
    // A model entry with every field, so list-item keys can be checked.
    binary["llm"]["models"] = json!([{
        "name": null, "provider": "openai", "base_url": null, "model": "m", "api_key": null,
        "native_tools": true, "max_tokens": null, "temperature": null, "max_tools": null,
        "short_descriptions": false, "structured_output": "auto"
    }]);
    let known = all_paths(&binary);
    for p in all_paths(&manifest()["schema"]) {
        assert!(
            known.contains(&p),
            "schema key {p} is not a HomeClaw setting"
        );
    }
}

/// The defaults plus every optional setting filled in, as the Supervisor would write them.
fn example_options() -> Value {
    let mut options = manifest()["options"].clone();
    options["llm"]["models"] = json!([{"provider": "openai", "model": "qwen2.5", "base_url":
        "http://192.168.1.5:11434/v1", "api_key": "sk-example-key-12345", "native_tools": false,
        "max_tokens": 512, "temperature": 0.2, "max_tools": 3, "short_descriptions": true,
        "name": "local"}]);
    options["api"]["token"] = json!("an-api-token-of-16+chars");
    options["mqtt"]["host"] = json!("core-mosquitto");
    options["mqtt"]["port"] = json!(1883);
    options["mqtt"]["username"] = json!("homeclaw");
    options["mqtt"]["password"] = json!("mqtt-secret");
    options["mqtt"]["tls"] = json!(false);
    options["mqtt"]["enabled"] = json!(true);
    options
}

#[test]
fn the_options_file_loads_with_every_option() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("options.json");
    std::fs::write(&path, example_options().to_string()).unwrap();
    let cfg = Config::load(&Sources {
        options_json: Some(path),
        ..Default::default()
    })
    .unwrap();
    assert_eq!(cfg.llm.models[0].label(), "local");
    assert!(!cfg.llm.models[0].native_tools);
    assert_eq!(cfg.mqtt.host.as_deref(), Some("core-mosquitto"));
    assert_eq!(cfg.wyoming.listen, "0.0.0.0:10700");
}

#[test]
fn every_option_is_translated_in_every_language() {
    let m = manifest();
    let schema = &m["schema"];
    for lang in ["en", "pl", "de"] {
        let t = yaml(&root().join(format!("translations/{lang}.yaml")));
        let conf = &t["configuration"];
        for (key, value) in schema.as_object().unwrap() {
            let entry = &conf[key];
            assert!(
                entry["name"].as_str().is_some_and(|s| !s.is_empty()),
                "{lang}: {key}"
            );
            assert!(
                entry["description"].as_str().is_some_and(|s| !s.is_empty()),
                "{lang}: {key}"
            );
            for field in value
                .as_object()
                .map(|o| o.keys().collect::<Vec<_>>())
                .unwrap_or_default()
            {
                let f = &entry["fields"][field];
                assert!(
                    f["name"].as_str().is_some_and(|s| !s.is_empty()),
                    "{lang}: {key}.{field}"
                );
                assert!(
                    f["description"].as_str().is_some_and(|s| !s.is_empty()),
                    "{lang}: {key}.{field}"
                );
            }
        }
    }
}

#[test]
fn the_run_script_reads_options_json_like_the_equivalent_config_file() {
    let dir = tempfile::tempdir().unwrap();
    let options = example_options();
    let options_path = dir.path().join("options.json");
    std::fs::write(&options_path, options.to_string()).unwrap();
    let from_script = Command::new(root().join("addon/run.sh"))
        .arg("config")
        .env("ADDON_BIN", env!("CARGO_BIN_EXE_homeclaw"))
        .env("HOMECLAW_OPTIONS_PATH", &options_path)
        .env_remove("SUPERVISOR_TOKEN")
        .output()
        .unwrap();
    assert!(
        from_script.status.success(),
        "{}",
        String::from_utf8_lossy(&from_script.stderr)
    );
    let file = dir.path().join("equivalent.json");
    std::fs::write(&file, options.to_string()).unwrap();
    let empty = dir.path().join("empty.json");
    std::fs::write(&empty, "{}").unwrap();
    let from_file = Command::new(env!("CARGO_BIN_EXE_homeclaw"))
        .args([
            "--config",
            file.to_str().unwrap(),
            "--options",
            empty.to_str().unwrap(),
            "config",
        ])
        .env_remove("SUPERVISOR_TOKEN")
        .output()
        .unwrap();
    assert!(from_file.status.success());
    let a: Value = serde_json::from_slice(&from_script.stdout).unwrap();
    let b: Value = serde_json::from_slice(&from_file.stdout).unwrap();
    assert_eq!(a, b);
    assert_eq!(a["mqtt"]["password"], "***", "secrets never print");
    assert!(!String::from_utf8_lossy(&from_script.stdout).contains("sk-example-key"));
}

/// Width and height from a PNG's header, after checking its signature.
fn png_size(path: &Path) -> (u32, u32) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(
        &bytes[..8],
        b"\x89PNG\r\n\x1a\n",
        "{} is not a PNG",
        path.display()
    );
    assert_eq!(&bytes[12..16], b"IHDR");
    let be = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    (be(16), be(20))
}

#[test]
fn the_store_finds_a_repository_with_images_and_a_watchdog_on_the_health_endpoint() {
    let repository = yaml(&root().join("repository.yaml"));
    assert!(
        repository["name"].as_str().is_some_and(|n| !n.is_empty()),
        "{repository}"
    );
    assert_eq!(png_size(&root().join("icon.png")), (128, 128));
    assert_eq!(png_size(&root().join("logo.png")), (250, 100));
    let m = manifest();
    // No address that leads nowhere.
    assert_eq!(m.get("url"), None, "{}", m["url"]);
    // The watchdog asks the API's own port for /api/health, which needs no token.
    let port = m["options"]["api"]["listen"]
        .as_str()
        .and_then(|l| l.rsplit(':').next())
        .unwrap()
        .to_owned();
    assert_eq!(
        m["watchdog"],
        format!("http://[HOST]:[PORT:{port}]/api/health")
    );
    assert!(
        m["ports"].get(format!("{port}/tcp")).is_some(),
        "{}",
        m["ports"]
    );
}

#[test]
fn the_panel_listens_on_the_ingress_port_for_the_ingress_proxy_alone() {
    let m = manifest();
    assert_eq!(m["ingress"], true);
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("options.json");
    std::fs::write(&empty, "{}").unwrap();
    let addon = Config::load(&Sources {
        options_json: Some(empty),
        env: [("SUPERVISOR_TOKEN".to_owned(), "supervisor-token".to_owned())].into(),
        ..Default::default()
    })
    .unwrap();
    let port = addon.panel.listen.rsplit(':').next().unwrap().to_owned();
    assert_eq!(m["ingress_port"].to_string(), port);
    assert!(addon.panel.allows("172.30.32.2".parse().unwrap()));
    assert!(!addon.panel.allows("172.30.32.1".parse().unwrap()));
    assert!(!addon.panel.allows("127.0.0.1".parse().unwrap()));
    // Outside the add-on: loopback only, also as an IPv4-mapped IPv6 peer.
    let local = homeclaw::config::PanelConfig::default();
    assert!(local.allows("::ffff:127.0.0.1".parse().unwrap()));
    assert!(!local.allows("192.168.1.20".parse().unwrap()));
}

#[test]
fn the_apparmor_profile_parses_and_confines_the_binary() {
    let profile = root().join("apparmor.txt");
    let text = std::fs::read_to_string(&profile).unwrap();
    // The binary runs under a child profile that allows its own files, not everything.
    assert!(
        text.contains("/usr/bin/homeclaw cx -> homeclaw_bin"),
        "{text}"
    );
    assert!(text.contains("profile homeclaw_bin"), "{text}");
    let parser = Path::new("/usr/sbin/apparmor_parser");
    assert!(
        parser.exists(),
        "apparmor_parser is missing: install Debian's apparmor package (.ci/run does)"
    );
    // -Q: compile only, never load into a kernel; -K: no cache.
    let out = Command::new(parser)
        .args(["-Q", "-K"])
        .arg(&profile)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "apparmor_parser refused the profile:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
