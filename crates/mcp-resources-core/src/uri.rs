//! Resource URIs (placeholder).
