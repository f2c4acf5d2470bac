//! Integration tests of the core, one module per feature.
