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
//! `x86_64-unknown-linux-gnu` since 1.90 when it ships its own (`rust-lld`, in the official
//! builds; a distribution's rustc may link with the system's `ld`, which knows no such flag). It
//! is passed there, in optimized builds, unless flags or the environment choose another linker
//! or `MCP_RESOURCES_NO_LAYOUT` is set. This script must never change what the program does.

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
    flags.split('\u{1f}').any(|flag| {
        ["linker", "link-self-contained", "fuse-ld"]
            .iter()
            .any(|word| flag.contains(word))
    })
}

/// Whether this rustc links with its own LLD by default on this target: 1.90 or later, with
/// `rust-lld` in its sysroot.
fn rustc_links_with_lld() -> bool {
    let rustc = env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let run = |arguments: &[&str]| {
        Command::new(&rustc)
            .args(arguments)
            .output()
            .ok()
            .filter(|output| output.status.success())
            .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_owned())
    };
    let Some(version) = run(&["--version"]) else {
        return false;
    };
    let mut numbers = version
        .split_whitespace()
        .nth(1)
        .unwrap_or("")
        .split('.')
        .map(|part| part.parse::<u32>().unwrap_or(0));
    let (major, minor) = (numbers.next().unwrap_or(0), numbers.next().unwrap_or(0));
    let Some(sysroot) = run(&["--print", "sysroot"]) else {
        return false;
    };
    let lld = Path::new(&sysroot).join("lib/rustlib/x86_64-unknown-linux-gnu/bin/gcc-ld/ld.lld");
    (major, minor) >= (1, 90) && lld.is_file()
}
