//! Shared workload of the bench programs: 1,000 static text resources of 1 KiB at
//! `mem:///r/0000` … `mem:///r/0999` and one template, the same set `cargo xtask bench`
//! writes into the `mcp-resources` configuration.

/// How many static resources are served.
pub const RESOURCE_COUNT: usize = 1000;
/// The size of every resource's text, in bytes.
pub const RESOURCE_BYTES: usize = 1024;
/// The template served besides the static resources.
pub const TEMPLATE: &str = "mem:///t/{id}";

/// The URI of resource `index`.
pub fn uri(index: usize) -> String {
    format!("mem:///r/{index:04}")
}

/// The 1 KiB text of resource `index`: the same bytes the xtask writes for `mcp-resources`.
pub fn text(index: usize) -> String {
    let head = format!("resource {index:04} ");
    let mut text = String::with_capacity(RESOURCE_BYTES);
    text.push_str(&head);
    while text.len() < RESOURCE_BYTES {
        text.push('x');
    }
    text
}

/// The index of a `mem:///r/NNNN` URI, when it names one of the resources.
pub fn index_of(uri: &str) -> Option<usize> {
    let digits = uri.strip_prefix("mem:///r/")?;
    if digits.len() != 4 {
        return None;
    }
    let index: usize = digits.parse().ok()?;
    (index < RESOURCE_COUNT).then_some(index)
}
