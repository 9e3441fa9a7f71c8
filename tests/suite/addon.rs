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
    // Every language HomeClaw answers is offered to Assist unless the user narrows it.
    assert!(
        cfg.wyoming.languages.is_empty(),
        "{:?}",
        cfg.wyoming.languages
    );
}

#[test]
fn every_option_is_translated_in_every_language() {
    let m = manifest();
    let schema = &m["schema"];
    for lang in ["en", "pl", "de", "fr"] {
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
        .env("HOMECLAW_APP_CONFIG", dir.path().join("absent.yaml"))
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
    // The store's link and the images come from the same repository.
    let url = m["url"].as_str().unwrap();
    let owner = url
        .strip_prefix("https://github.com/")
        .unwrap()
        .split('/')
        .next()
        .unwrap();
    assert_eq!(m["image"], format!("ghcr.io/{owner}/{{arch}}-homeclaw"));
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

/// What the Supervisor of today (home-assistant/supervisor, `supervisor/apps/validate.py`,
/// 2026.08) accepts in an app's config.yaml: its keys (anything else is dropped without a
/// word), their types, and what it calls deprecated. Facts read from its schema, checked here
/// without its code.
mod supervisor_schema {
    use serde_json::Value;

    /// `_SCHEMA_APP_CONFIG`'s keys that are not deprecated.
    pub const KEYS: &[&str] = &[
        "name",
        "version",
        "slug",
        "description",
        "arch",
        "machine",
        "url",
        "startup",
        "boot",
        "init",
        "stage",
        "ports",
        "ports_description",
        "watchdog",
        "webui",
        "ingress",
        "ingress_port",
        "ingress_entry",
        "ingress_stream",
        "panel_icon",
        "panel_title",
        "panel_admin",
        "homeassistant",
        "host_network",
        "host_pid",
        "host_ipc",
        "host_uts",
        "host_dbus",
        "devices",
        "udev",
        "tmpfs",
        "map",
        "environment",
        "privileged",
        "apparmor",
        "full_access",
        "audio",
        "video",
        "gpio",
        "usb",
        "uart",
        "devicetree",
        "kernel_modules",
        "realtime",
        "hassio_api",
        "hassio_role",
        "homeassistant_api",
        "stdin",
        "legacy",
        "docker_api",
        "auth_api",
        "services",
        "discovery",
        "backup_exclude",
        "backup_pre",
        "backup_post",
        "backup",
        "options",
        "schema",
        "image",
        "ulimits",
        "timeout",
        "journald",
        "breaking_versions",
    ];
    /// Keys it warns about or ignores: `advanced` and `codenotary` are ignored, `auto_uart` and
    /// `snapshot*` renamed, and `build_from` belongs to build.yaml (itself deprecated: the
    /// Dockerfile names its base image).
    pub const DEPRECATED: &[&str] = &[
        "advanced",
        "codenotary",
        "auto_uart",
        "snapshot",
        "snapshot_exclude",
        "snapshot_pre",
        "snapshot_post",
        "build_from",
    ];
    /// `ARCH_ALL` (armhf, armv7 and i386 are deprecated).
    pub const ARCHES: &[&str] = &["amd64", "aarch64"];
    pub const STARTUP: &[&str] = &["initialize", "system", "services", "application", "once"];
    pub const BOOT: &[&str] = &["auto", "manual", "manual_only"];
    /// `MappingType` without the legacy names (`addons`, `all_addon_configs`, `addon_config`,
    /// deprecated as of 2026.07) and `config` (replaced by `homeassistant_config`).
    pub const MAP_TYPES: &[&str] = &[
        "data",
        "ssl",
        "local_apps",
        "backup",
        "share",
        "media",
        "homeassistant_config",
        "all_app_configs",
        "app_config",
    ];
    /// `RE_SCHEMA_ELEMENT` of `supervisor/apps/options.py`.
    pub const SCHEMA_ELEMENT: &str = r"^(?:|bool|email|url|port|device(?:\(subsystem=[a-z]+\))?|str(?:\(\d*,\d*\))?|password(?:\(\d*,\d*\))?|int(?:\(-?\d*,-?\d*\))?|float(?:\(-?\d*\.?\d*,-?\d*\.?\d*\))?|match\(.*\)|list\(.+\))\??$";

    /// Every leaf of an options schema, with its path.
    pub fn leaves(value: &Value, path: &str, out: &mut Vec<(String, String)>) {
        match value {
            Value::String(s) => out.push((path.to_owned(), s.clone())),
            Value::Array(items) => items
                .iter()
                .for_each(|v| leaves(v, &format!("{path}[]"), out)),
            Value::Object(map) => map
                .iter()
                .for_each(|(k, v)| leaves(v, &format!("{path}.{k}"), out)),
            other => out.push((path.to_owned(), other.to_string())),
        }
    }

    /// `docker_image`: a registry in lower case, path components of `[a-z0-9{][a-z0-9.-_{}]*`,
    /// no tag (the version is the tag).
    pub fn image_ok(image: &str) -> bool {
        let component = regex::Regex::new(r"^[a-z0-9{][a-z0-9.\-_{}]*$").unwrap();
        let mut parts = image.split('/');
        let first = parts.next().unwrap_or_default();
        let registry = first.contains('.') || first.contains(':') || first == "localhost";
        let path: Vec<&str> = if registry {
            parts.collect()
        } else {
            image.split('/').collect()
        };
        (!registry || first == first.to_lowercase())
            && !path.is_empty()
            && !path.iter().any(|c| c.contains(':'))
            && path.iter().all(|c| component.is_match(c))
    }
}

#[test]
fn the_supervisor_of_today_takes_every_key_of_the_manifest() {
    use supervisor_schema as sv;
    let m = manifest();
    for key in m.as_object().unwrap().keys() {
        assert!(
            !sv::DEPRECATED.contains(&key.as_str()),
            "{key} is deprecated in the Supervisor"
        );
        assert!(
            sv::KEYS.contains(&key.as_str()),
            "the Supervisor drops the unknown key {key}"
        );
    }
    for (key, kind) in [
        ("name", "str"),
        ("version", "str"),
        ("slug", "str"),
        ("description", "str"),
    ] {
        assert!(m[key].is_string(), "{key} must be a {kind}: {}", m[key]);
    }
    assert!(
        regex::Regex::new(r"^[-_.A-Za-z0-9]+$")
            .unwrap()
            .is_match(m["slug"].as_str().unwrap())
    );
    for arch in m["arch"].as_array().unwrap() {
        assert!(sv::ARCHES.contains(&arch.as_str().unwrap()), "arch {arch}");
    }
    assert!(sv::STARTUP.contains(&m["startup"].as_str().unwrap()));
    assert!(sv::BOOT.contains(&m["boot"].as_str().unwrap()));
    // A version Home Assistant compares (`homeassistant`: the oldest Core the app runs on).
    let core = regex::Regex::new(r"^20\d\d\.\d{1,2}\.\d+$").unwrap();
    assert!(
        core.is_match(m["homeassistant"].as_str().unwrap()),
        "{}",
        m["homeassistant"]
    );
    assert!(m["url"].as_str().unwrap().starts_with("https://"));
    let image = m["image"].as_str().unwrap();
    assert!(
        sv::image_ok(image) && image.contains("{arch}"),
        "image {image}"
    );
    let watchdog =
        regex::Regex::new(r"^(?:https?|\[PROTO:\w+\]|tcp)://\[HOST\]:(\[PORT:\d+\]|\d+).*$")
            .unwrap();
    assert!(watchdog.is_match(m["watchdog"].as_str().unwrap()));
    let port = regex::Regex::new(r"^\d+/(tcp|udp)$").unwrap();
    for (name, host) in m["ports"].as_object().unwrap() {
        assert!(port.is_match(name), "port {name}");
        assert!(host.is_null() || host.as_u64().is_some_and(|p| (1..=65535).contains(&p)));
        assert!(
            m["ports_description"][name].is_string(),
            "no description for {name}"
        );
    }
    // `map`: today's names only; the legacy `addon_config` is dropped where `app_config` is read.
    let volume = regex::Regex::new(r"^([a-z_]+)(?::(rw|ro))?$").unwrap();
    for entry in m["map"].as_array().unwrap() {
        let text = entry.as_str().unwrap();
        let kind = volume
            .captures(text)
            .map(|c| c[1].to_owned())
            .unwrap_or_default();
        assert!(sv::MAP_TYPES.contains(&kind.as_str()), "map type {text}");
    }
    assert!(
        m["backup_exclude"]
            .as_array()
            .unwrap()
            .iter()
            .all(Value::is_string)
    );
    let service = regex::Regex::new(r"^(mqtt|mysql):(provide|want|need)$").unwrap();
    for wanted in m["services"].as_array().unwrap() {
        assert!(service.is_match(wanted.as_str().unwrap()), "{wanted}");
    }
    let element = regex::Regex::new(sv::SCHEMA_ELEMENT).unwrap();
    let mut leaves = Vec::new();
    sv::leaves(&m["schema"], "schema", &mut leaves);
    for (path, kind) in leaves {
        assert!(
            element.is_match(&kind),
            "{path}: the Supervisor knows no type {kind:?}"
        );
    }
    // build.yaml is deprecated: the Dockerfile names its own base image.
    for legacy in ["build.yaml", "build.yml", "build.json"] {
        assert!(!root().join(legacy).exists(), "{legacy} is deprecated");
    }
    let dockerfile = std::fs::read_to_string(root().join("Dockerfile")).unwrap();
    let base = dockerfile
        .lines()
        .rfind(|l| l.starts_with("FROM "))
        .unwrap();
    assert_eq!(
        base, "FROM ghcr.io/home-assistant/base:3.23",
        "{dockerfile}"
    );
    assert!(dockerfile.contains("io.hass.type=\"app\""));
}

#[test]
fn the_checker_knows_a_manifest_the_supervisor_would_refuse() {
    use supervisor_schema as sv;
    assert!(
        !sv::image_ok("ghcr.io/homeclaw/{arch}-homeclaw:0.1.0"),
        "a tag"
    );
    assert!(
        !sv::image_ok("GHCR.io/homeclaw/{arch}-homeclaw"),
        "an upper-case registry"
    );
    assert!(
        !sv::image_ok("ghcr.io/HomeClaw/{arch}-homeclaw"),
        "an upper-case path"
    );
    assert!(sv::image_ok("homeclaw/{arch}-homeclaw"));
    let element = regex::Regex::new(sv::SCHEMA_ELEMENT).unwrap();
    for ok in [
        "str",
        "int(1,50)?",
        "list(openai|anthropic)?",
        "password?",
        "float(0,2)?",
        "port?",
        "url?",
        "bool",
    ] {
        assert!(element.is_match(ok), "{ok}");
    }
    for bad in ["string", "int(1-50)", "list()", "boolean"] {
        assert!(!element.is_match(bad), "{bad}");
    }
    assert!(!sv::MAP_TYPES.contains(&"addon_config"));
}

/// The app's own folder holds settings the options tab does not show; the tab's values win.
#[test]
fn the_run_script_adds_the_apps_own_settings_under_the_options() {
    let dir = tempfile::tempdir().unwrap();
    let options_path = dir.path().join("options.json");
    std::fs::write(&options_path, example_options().to_string()).unwrap();
    let extra = dir.path().join("homeclaw.yaml");
    std::fs::write(
        &extra,
        "agent:\n  fast_path: false\nmqtt:\n  host: from-the-file\n",
    )
    .unwrap();
    let out = Command::new(root().join("addon/run.sh"))
        .arg("config")
        .env("ADDON_BIN", env!("CARGO_BIN_EXE_homeclaw"))
        .env("HOMECLAW_OPTIONS_PATH", &options_path)
        .env("HOMECLAW_APP_CONFIG", &extra)
        .env_remove("SUPERVISOR_TOKEN")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cfg: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(cfg["agent"]["fast_path"], false, "the file's own setting");
    assert_eq!(
        cfg["mqtt"]["host"], "core-mosquitto",
        "the options tab wins"
    );
}
