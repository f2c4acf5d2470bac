//! tidy (placeholder)
pub(crate) fn run_all() -> Result<(), Vec<String>> { Ok(()) }
