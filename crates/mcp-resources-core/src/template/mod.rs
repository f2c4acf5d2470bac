//! RFC 6570 URI templates (placeholder).
