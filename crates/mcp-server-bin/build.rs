//! Links `mcp-resources` with its code laid out by use: the functions it runs (starting up, then
//! serving both eras on stdio and HTTP) first and side by side, everything else after.
//!
//! **Layer:** build script of the binary. The kernel maps a program's code in windows of 64 KiB
//! around each page it touches, so code spread thin over the whole text section ends up resident
//! as a whole: about 4 MB, where the functions run take about 1.1 MB. The order is
//! `layout/symbol-order.txt`, written by `cargo xtask layout` from a profile; a function missing
//! from it (renamed, new) is placed after the listed ones and costs nothing but locality.
//!
//! The order is a flag of LLD (`--symbol-ordering-file`), the linker rustc uses by default for
//! `x86_64-unknown-linux-gnu` since 1.90: it is passed there, in optimized builds, unless another
//! linker is configured or `MCP_RESOURCES_NO_LAYOUT` is set. This script must never change what
//! the program does.

use std::env;
use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=layout/symbol-order.txt");
    println!("cargo:rerun-if-env-changed=MCP_RESOURCES_NO_LAYOUT");
    println!("cargo:rerun-if-env-changed=CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER");
    if env::var_os("MCP_RESOURCES_NO_LAYOUT").is_some()
        || env::var("PROFILE").as_deref() != Ok("release")
        || env::var("TARGET").as_deref() != Ok("x86_64-unknown-linux-gnu")
        || env::var_os("CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER").is_some()
        || custom_linker_flags()
        || !rustc_links_with_lld()
    {
        return;
    }
    let order = Path::new(&env::var("CARGO_MANIFEST_DIR").unwrap_or_default())
        .join("layout/symbol-order.txt");
    if order.is_file() {
        println!(
            "cargo:rustc-link-arg-bin=mcp-resources=-Wl,--symbol-ordering-file={}",
            order.display()
        );
        println!("cargo:rustc-link-arg-bin=mcp-resources=-Wl,--no-warn-symbol-ordering");
    }
}

/// Whether the flags given to rustc choose a linker or its features themselves.
fn custom_linker_flags() -> bool {
    let flags = env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    flags
        .split('\u{1f}')
        .any(|flag| flag.contains("linker") || flag.contains("link-self-contained"))
}

/// Whether this rustc links with its own LLD by default on this target (1.90 and later).
fn rustc_links_with_lld() -> bool {
    let rustc = env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let Ok(output) = Command::new(rustc).arg("--version").output() else {
        return false;
    };
    let version = String::from_utf8_lossy(&output.stdout);
    let mut numbers = version
        .split_whitespace()
        .nth(1)
        .unwrap_or("")
        .split('.')
        .map(|part| part.parse::<u32>().unwrap_or(0));
    let (major, minor) = (numbers.next().unwrap_or(0), numbers.next().unwrap_or(0));
    (major, minor) >= (1, 90)
}
