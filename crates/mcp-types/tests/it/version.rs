//! Protocol versions: parsing (open), era, ordering, and the per-version feature facts.

use mcp_types::{Era, ProtocolVersion};

/// The facts of one version as a compact string, one letter per fact that holds.
fn facts(version: &ProtocolVersion) -> String {
    let table = [
        ('t', version.has_titles()),
        ('i', version.has_icons()),
        ('m', version.has_meta()),
        ('l', version.has_last_modified()),
        ('k', version.has_resource_links()),
        ('b', version.allows_batches()),
        ('c', version.has_completions_capability()),
        ('x', version.has_completion_context()),
        ('p', version.has_progress_message()),
        ('r', version.has_result_type()),
        ('s', version.has_session_methods()),
        ('d', version.has_discover_and_listen()),
        ('e', version.has_extensions_capability()),
    ];
    table
        .iter()
        .filter(|(_, holds)| *holds)
        .map(|(letter, _)| *letter)
        .collect()
}

fn check(input: &str, expect: &str) {
    let version = ProtocolVersion::new(input);
    let era = match version.era() {
        Some(Era::Legacy) => "legacy",
        Some(Era::Modern) => "modern",
        None => "unknown",
    };
    assert_eq!(
        format!("{era} {}", facts(&version)),
        expect,
        "version {input}"
    );
}

#[test]
fn facts_per_version() {
    check("2024-11-05", "legacy s");
    check("2025-03-26", "legacy bcps");
    check("2025-06-18", "legacy tmlkcxps");
    check("2025-11-25", "legacy timlkcxps");
    check("2026-07-28", "modern timlkcxprde");
    check("2025-09-01", "unknown ");
    check("1900-01-01", "unknown ");
    check("", "unknown ");
}

#[test]
fn versions_are_open_ordered_and_serialize_as_strings() {
    let unknown: ProtocolVersion = serde_json::from_str(r#""2099-01-01""#).expect("parses");
    assert_eq!(unknown.as_str(), "2099-01-01");
    assert!(!unknown.is_known());
    assert!(
        ProtocolVersion::KNOWN
            .windows(2)
            .all(|pair| pair[0] < pair[1])
    );
    assert_eq!(ProtocolVersion::LATEST, ProtocolVersion::V2026_07_28);
    assert_eq!(ProtocolVersion::LATEST_LEGACY, ProtocolVersion::V2025_11_25);
    assert_eq!(
        ProtocolVersion::new("2025-06-18"),
        ProtocolVersion::V2025_06_18
    );
    assert_eq!(
        serde_json::to_string(&ProtocolVersion::V2024_11_05).expect("json"),
        r#""2024-11-05""#
    );
}
