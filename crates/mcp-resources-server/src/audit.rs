//! The audit log of sensitive resources: one JSON line per record, appended to a file (flushed
//! per line) or written to stderr.
//!
//! **Layer:** server. It implements the core's [`AuditSink`] seam; it never decides what is
//! sensitive (the core's `sensitive` rules do) and never writes contents or tokens: a line
//! holds the time, the principal's subject and issuer (`null` for the anonymous principal of
//! stdio or of HTTP without authorization), the action, the URI, the rule, the bytes served, the
//! outcome, and how many spans each content rule masked.
//!
//! Each line is written and flushed on tokio's blocking pool before the request it records is
//! answered; a failed write fails that request (the core answers it with an error) and is
//! logged here, so a line is never lost silently.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use mcp_resources_core::sensitive::{AuditError, AuditRecord, AuditSink};
use serde_json::json;

/// Where audit lines go.
#[derive(Clone)]
pub struct AuditLog {
    out: Arc<Mutex<Box<dyn Write + Send>>>,
    name: Arc<str>,
}

impl std::fmt::Debug for AuditLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuditLog")
            .field("to", &self.name)
            .finish_non_exhaustive()
    }
}

impl AuditLog {
    /// Appends to the file at `path`, made if missing (mode `0600` on Unix).
    ///
    /// # Errors
    ///
    /// The file cannot be opened for appending.
    pub fn file(path: &Path) -> std::io::Result<AuditLog> {
        let mut options = std::fs::OpenOptions::new();
        options.append(true).create(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let file = options.open(path)?;
        Ok(AuditLog {
            out: Arc::new(Mutex::new(Box::new(file))),
            name: Arc::from(path.display().to_string()),
        })
    }

    /// Writes to the process's stderr (beside the logs; each line is one JSON object).
    pub fn stderr() -> AuditLog {
        AuditLog {
            out: Arc::new(Mutex::new(Box::new(std::io::stderr()))),
            name: Arc::from("stderr"),
        }
    }

    /// Writes to `out` (tests).
    pub fn to_writer(out: Box<dyn Write + Send>, name: &str) -> AuditLog {
        AuditLog {
            out: Arc::new(Mutex::new(out)),
            name: Arc::from(name),
        }
    }

    /// Where the lines go, for the start-up log.
    pub fn target(&self) -> PathBuf {
        PathBuf::from(&*self.name)
    }
}

/// The JSON line of `record`, stamped `time`.
fn line(record: &AuditRecord, time: &str) -> Vec<u8> {
    let masked: serde_json::Map<String, serde_json::Value> = record
        .masked
        .iter()
        .map(|(rule, spans)| (rule.clone(), json!(spans)))
        .collect();
    let mut bytes = serde_json::to_vec(&json!({
        "time": time,
        "subject": record.subject,
        "issuer": record.issuer,
        "action": record.action.as_str(),
        "uri": record.uri,
        "rule": record.rule,
        "bytes": record.bytes,
        "outcome": record.outcome.as_str(),
        "masked": masked,
    }))
    .expect("invariant: a JSON value serializes");
    bytes.push(b'\n');
    bytes
}

#[async_trait::async_trait]
impl AuditSink for AuditLog {
    async fn record(&self, record: AuditRecord) -> Result<(), AuditError> {
        let bytes = line(&record, &jiff::Timestamp::now().to_string());
        let out = Arc::clone(&self.out);
        let written = tokio::task::spawn_blocking(move || {
            let mut out = out.lock().unwrap_or_else(PoisonError::into_inner);
            out.write_all(&bytes)?;
            out.flush()
        })
        .await
        .unwrap_or_else(|error| Err(std::io::Error::other(error)));
        written.map_err(|error| {
            tracing::error!(
                log = %self.name,
                %error,
                uri = %record.uri,
                action = record.action.as_str(),
                "the audit log could not be written; the request was refused"
            );
            AuditError(error.to_string())
        })
    }
}

#[cfg(test)]
mod tests {
    use mcp_resources_core::sensitive::{AuditAction, AuditOutcome};

    use super::*;

    #[test]
    fn a_line_is_one_json_object_without_contents() {
        let record = AuditRecord {
            subject: Some("alice".to_owned()),
            issuer: None,
            action: AuditAction::Read,
            uri: "file:///srv/hr/salaries.csv".to_owned(),
            rule: "hr".to_owned(),
            bytes: Some(42),
            outcome: AuditOutcome::Served,
            masked: vec![("email".to_owned(), 3)],
        };
        let bytes = line(&record, "2026-12-02T15:00:00Z");
        assert_eq!(bytes.last(), Some(&b'\n'));
        assert_eq!(bytes.iter().filter(|byte| **byte == b'\n').count(), 1);
        let value: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(
            value,
            json!({"time": "2026-12-02T15:00:00Z", "subject": "alice", "issuer": null,
                "action": "read", "uri": "file:///srv/hr/salaries.csv", "rule": "hr",
                "bytes": 42, "outcome": "served", "masked": {"email": 3}})
        );
    }
}
