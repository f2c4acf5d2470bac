//! Opening paths beneath a served root, atomically, without following a symlink anywhere: the
//! one place where the filesystem provider turns a checked relative path into a handle.
//!
//! **Layer:** provider (`mcp-resources-fs`). Blocking system calls only; this module never
//! decides what is excluded, never knows URIs, the index or the engine. Every open of a served
//! file or directory goes through it, and so does every read of an ignore file.
//!
//! # How
//!
//! Each root is opened once, at start ([`RootDir`]), and every path below it is resolved
//! relative to that handle. On Linux 5.6 and later that is one `openat2` with
//! `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS`: the kernel refuses any path
//! that would leave the root or meet a symlink, in the same step that opens it, so no later swap
//! of a component can redirect it. Where `openat2` is missing (older kernels, other Unixes, or
//! a sandbox that forbids it) the same guarantee comes from a walk, one
//! `openat(O_NOFOLLOW | O_DIRECTORY)` per directory component, each relative to the handle of
//! the one before, and `O_NOFOLLOW` on the last. Either way the handle is then `fstat`ed: only
//! a regular file (or, for [`open_dir`], a directory) is kept.
//!
//! Every open also carries `O_NONBLOCK` and `O_NOCTTY`, so that a FIFO or a terminal that took a
//! checked file's place can never hold a thread; such a handle fails the `fstat` check and is
//! closed unread. A device node is opened before its `fstat` refuses it, too (making one takes
//! root, who can read anything anyway; the walk that builds the index never lists one). Off Unix the same checks are made path by path (`symlink_metadata` of every
//! component before the open): that leaves the race of a swap between check and open, and is
//! documented as such in the README.
//!
//! Hard links cannot be told apart from the file they link: a hard link inside a root to a
//! file outside it (or outside a grant) reads as that file. [`FileStat::links`] lets the provider
//! refuse files with more than one link ([`FsConfig::refuse_hard_links`]).
//!
//! [`FsConfig::refuse_hard_links`]: super::FsConfig::refuse_hard_links

use std::fs::File;
use std::io::{self, Read};
use std::path::{Component, Path};
use std::time::{Duration, SystemTime};

/// What a handle's `fstat` (or a directory entry's `lstat`) says, in the terms the provider
/// uses: listing, cache stamps and the hard-link rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FileStat {
    pub(crate) kind: Kind,
    pub(crate) len: u64,
    pub(crate) modified: Option<SystemTime>,
    /// Inode and change time (seconds, nanoseconds), where the platform has them: a file
    /// replaced by a rename, or rewritten within the modification time's granularity, differs.
    pub(crate) identity: (u64, i64, i64),
    /// How many hard links the file has (1 where the platform does not say).
    pub(crate) links: u64,
}

/// The kinds of directory entry the provider tells apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    File,
    Directory,
    Symlink,
    /// A FIFO, socket or device: never opened, never listed.
    Other,
}

/// A served root, opened once; every path below it is resolved from this handle.
#[derive(Debug)]
pub(crate) struct RootDir {
    #[cfg(unix)]
    fd: std::os::fd::OwnedFd,
    #[cfg(not(unix))]
    path: std::path::PathBuf,
}

impl RootDir {
    /// Opens the canonical root `path` (a directory; the last component is not followed).
    pub(crate) fn open(path: &Path) -> io::Result<RootDir> {
        #[cfg(unix)]
        {
            let fd = rustix::fs::open(path, directory_flags(), rustix::fs::Mode::empty())?;
            Ok(RootDir { fd })
        }
        #[cfg(not(unix))]
        {
            Ok(RootDir {
                path: path.to_path_buf(),
            })
        }
    }
}

/// The regular file at `relative` (plain downward components) below `root`, opened for
/// reading with its `fstat`; `Ok(None)` when it is missing, not a regular file, or reached
/// through a symlink or out of the root.
pub(crate) fn open_file(root: &RootDir, relative: &Path) -> io::Result<Option<(File, FileStat)>> {
    let file = match open_beneath(root, relative, false) {
        Ok(file) => file,
        Err(error) if is_refusal(&error) => return Ok(None),
        Err(error) => return Err(error),
    };
    let stat = stat_of(&file)?;
    Ok((stat.kind == Kind::File).then_some((file, stat)))
}

/// The directory at `relative` below `root` (the root itself when `relative` is empty), as
/// [`open_file`] resolves paths; `Ok(None)` when it is not a directory reached that way.
pub(crate) fn open_dir(root: &RootDir, relative: &Path) -> io::Result<Option<File>> {
    let dir = match open_beneath(root, relative, true) {
        Ok(dir) => dir,
        Err(error) if is_refusal(&error) => return Ok(None),
        Err(error) => return Err(error),
    };
    let stat = stat_of(&dir)?;
    Ok((stat.kind == Kind::Directory).then_some(dir))
}

/// The metadata of the entry `name` of the open directory `dir` itself (not followed);
/// `Ok(None)` when it is not there.
pub(crate) fn stat_at(dir: &File, name: &std::ffi::OsStr) -> io::Result<Option<FileStat>> {
    #[cfg(unix)]
    {
        match rustix::fs::statat(dir, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => Ok(Some(from_stat(&stat))),
            Err(rustix::io::Errno::NOENT) => Ok(None),
            Err(error) => Err(error.into()),
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (dir, name);
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "directory handles are looked at by path off Unix",
        ))
    }
}

/// One entry of a directory, its own metadata (a symlink is a symlink).
#[derive(Debug)]
pub(crate) struct Entry {
    pub(crate) name: std::ffi::OsString,
    pub(crate) stat: FileStat,
}

/// The entries of an open directory (without `.` and `..`), each `lstat`ed relative to it.
/// Entries that vanish meanwhile are left out.
pub(crate) fn entries(dir: &File) -> io::Result<Vec<Entry>> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let mut entries = Vec::new();
        for entry in rustix::fs::Dir::read_from(dir)? {
            let entry = entry?;
            let name = entry.file_name();
            if matches!(name.to_bytes(), b"." | b"..") {
                continue;
            }
            let stat = match rustix::fs::statat(dir, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW) {
                Ok(stat) => from_stat(&stat),
                Err(rustix::io::Errno::NOENT) => continue,
                Err(error) => return Err(error.into()),
            };
            let name = std::ffi::OsStr::from_bytes(name.to_bytes()).to_os_string();
            entries.push(Entry { name, stat });
        }
        Ok(entries)
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "directory handles are listed by path off Unix",
        ))
    }
}

/// Why an ignore file was not read whole.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SmallFileError {
    /// It is larger than the limit.
    #[error("{len} bytes, over the limit of {limit}")]
    TooLarge { len: u64, limit: u64 },
    /// It is not a regular file (a FIFO, a device, a directory or a symlink).
    #[error("not a regular file")]
    NotRegular,
    /// The system said no.
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// Reads the small regular file `path` whole (an ignore file): `Ok(None)` when it does not
/// exist. Its last component is not followed, a FIFO or device in its place is refused
/// without waiting on it, and nothing over `limit` bytes is read. `path` is absolute: ignore
/// files above a root are read too, and the components inside a root were checked by the
/// caller's walk (a swap of one of them can only change which rules apply, which a local
/// writer can do anyway by editing the file).
pub(crate) fn read_small_file(
    path: &Path,
    limit: u64,
) -> Result<Option<(Vec<u8>, FileStat)>, SmallFileError> {
    let file = match open_no_follow(path) {
        Ok(file) => file,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
        // A symlink (`O_NOFOLLOW`), or a socket.
        Err(error) if is_not_a_file(&error) => return Err(SmallFileError::NotRegular),
        Err(error) => return Err(error.into()),
    };
    let stat = stat_of(&file)?;
    if stat.kind != Kind::File {
        return Err(SmallFileError::NotRegular);
    }
    if stat.len > limit {
        return Err(SmallFileError::TooLarge {
            len: stat.len,
            limit,
        });
    }
    let mut bytes = Vec::with_capacity(usize::try_from(stat.len).unwrap_or(0));
    // One byte more than allowed tells a file that grew since its `fstat`.
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(SmallFileError::TooLarge {
            len: bytes.len() as u64,
            limit,
        });
    }
    Ok(Some((bytes, stat)))
}

/// The metadata of `path` itself (a symlink is a symlink), by path: for stamps only, never to
/// decide what may be opened.
pub(crate) fn lstat(path: &Path) -> io::Result<FileStat> {
    #[cfg(unix)]
    {
        Ok(from_stat(&rustix::fs::lstat(path)?))
    }
    #[cfg(not(unix))]
    {
        Ok(from_metadata(&std::fs::symlink_metadata(path)?))
    }
}

/// The metadata of an open handle.
pub(crate) fn stat_of(file: &File) -> io::Result<FileStat> {
    #[cfg(unix)]
    {
        Ok(from_stat(&rustix::fs::fstat(file)?))
    }
    #[cfg(not(unix))]
    {
        Ok(from_metadata(&file.metadata()?))
    }
}

/// Whether an open failed because the path is not one we serve (missing, a symlink on the way,
/// out of the root, not a directory where one was needed), as opposed to a real I/O error.
fn is_refusal(error: &io::Error) -> bool {
    use io::ErrorKind;
    if matches!(
        error.kind(),
        ErrorKind::NotFound | ErrorKind::NotADirectory | ErrorKind::PermissionDenied
    ) {
        return true;
    }
    #[cfg(unix)]
    {
        let errno = error.raw_os_error();
        // ELOOP: a symlink (O_NOFOLLOW, RESOLVE_NO_SYMLINKS); EXDEV: out of the root
        // (RESOLVE_BENEATH); ENXIO: a socket or a FIFO without a writer opened for writing.
        [
            rustix::io::Errno::LOOP,
            rustix::io::Errno::XDEV,
            rustix::io::Errno::NXIO,
        ]
        .iter()
        .any(|refused| errno == Some(refused.raw_os_error()))
    }
    #[cfg(not(unix))]
    false
}

/// Whether an open failed because the last component is a symlink or a socket.
fn is_not_a_file(error: &io::Error) -> bool {
    #[cfg(unix)]
    {
        let errno = error.raw_os_error();
        [rustix::io::Errno::LOOP, rustix::io::Errno::NXIO]
            .iter()
            .any(|refused| errno == Some(refused.raw_os_error()))
    }
    #[cfg(not(unix))]
    {
        let _ = error;
        false
    }
}

#[cfg(unix)]
fn common_flags() -> rustix::fs::OFlags {
    use rustix::fs::OFlags;
    OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY
}

#[cfg(unix)]
fn directory_flags() -> rustix::fs::OFlags {
    common_flags() | rustix::fs::OFlags::DIRECTORY
}

/// Opens `relative` below `root` without following any symlink (see the module documentation).
fn open_beneath(root: &RootDir, relative: &Path, directory: bool) -> io::Result<File> {
    let plain = relative
        .components()
        .all(|component| matches!(component, Component::Normal(_)));
    if !plain {
        return Err(io::Error::from(io::ErrorKind::NotFound));
    }
    #[cfg(unix)]
    {
        let flags = if directory {
            directory_flags()
        } else {
            common_flags()
        };
        #[cfg(any(target_os = "linux", target_os = "android"))]
        if let Some(opened) = openat2_beneath(root, relative, flags) {
            return opened;
        }
        walk_beneath(root, relative, flags)
    }
    #[cfg(not(unix))]
    {
        let _ = directory;
        let mut path = root.path.clone();
        for component in relative.components() {
            path.push(component);
            if std::fs::symlink_metadata(&path)?.file_type().is_symlink() {
                return Err(io::Error::from(io::ErrorKind::NotFound));
            }
        }
        File::open(path)
    }
}

/// Whether `openat2` turned out to be missing or forbidden; then every later open walks.
#[cfg(any(target_os = "linux", target_os = "android"))]
static NO_OPENAT2: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The open through `openat2`, or `None` when this system cannot do it (then the caller
/// walks).
#[cfg(any(target_os = "linux", target_os = "android"))]
fn openat2_beneath(
    root: &RootDir,
    relative: &Path,
    flags: rustix::fs::OFlags,
) -> Option<io::Result<File>> {
    use std::sync::atomic::Ordering;

    use rustix::fs::{Mode, ResolveFlags};
    use rustix::io::Errno;
    if NO_OPENAT2.load(Ordering::Relaxed) {
        return None;
    }
    let path = if relative.as_os_str().is_empty() {
        Path::new(".")
    } else {
        relative
    };
    let resolve = ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
    match rustix::fs::openat2(&root.fd, path, flags, Mode::empty(), resolve) {
        Ok(fd) => Some(Ok(File::from(fd))),
        // Missing (ENOSYS), forbidden by a seccomp filter (EPERM is what container runtimes
        // answer), or an `open_how` this kernel does not know (E2BIG, EINVAL).
        Err(Errno::NOSYS | Errno::PERM | Errno::TOOBIG | Errno::INVAL) => {
            if !NO_OPENAT2.swap(true, Ordering::Relaxed) {
                tracing::info!(
                    "openat2 is not available: paths are resolved component by component"
                );
            }
            None
        }
        // The kernel asks to try again when a rename raced the lookup.
        Err(Errno::AGAIN) => Some(walk_beneath(root, relative, flags)),
        Err(error) => Some(Err(error.into())),
    }
}

/// The open by a walk: one `openat` per component, each relative to the directory before it,
/// none following a symlink.
#[cfg(unix)]
fn walk_beneath(root: &RootDir, relative: &Path, flags: rustix::fs::OFlags) -> io::Result<File> {
    use std::os::fd::AsFd;

    use rustix::fs::Mode;
    let components: Vec<&std::ffi::OsStr> = relative.iter().collect();
    let Some((last, directories)) = components.split_last() else {
        return rustix::fs::openat(&root.fd, ".", flags, Mode::empty())
            .map(File::from)
            .map_err(io::Error::from);
    };
    let mut current: Option<std::os::fd::OwnedFd> = None;
    for name in directories {
        let parent = current.as_ref().map_or(root.fd.as_fd(), AsFd::as_fd);
        current = Some(rustix::fs::openat(
            parent,
            *name,
            directory_flags(),
            Mode::empty(),
        )?);
    }
    let parent = current.as_ref().map_or(root.fd.as_fd(), AsFd::as_fd);
    Ok(File::from(rustix::fs::openat(
        parent,
        *last,
        flags,
        Mode::empty(),
    )?))
}

/// Opens an absolute path for reading without following its last component and without
/// waiting on a FIFO.
fn open_no_follow(path: &Path) -> io::Result<File> {
    #[cfg(unix)]
    {
        Ok(File::from(rustix::fs::open(
            path,
            common_flags(),
            rustix::fs::Mode::empty(),
        )?))
    }
    #[cfg(not(unix))]
    {
        if std::fs::symlink_metadata(path)?.file_type().is_symlink() {
            return Err(io::Error::from(io::ErrorKind::NotFound));
        }
        File::open(path)
    }
}

#[cfg(unix)]
#[allow(clippy::unnecessary_cast)] // the field types differ between architectures
fn from_stat(stat: &rustix::fs::Stat) -> FileStat {
    use rustix::fs::FileType;
    let kind = match FileType::from_raw_mode(stat.st_mode as _) {
        FileType::RegularFile => Kind::File,
        FileType::Directory => Kind::Directory,
        FileType::Symlink => Kind::Symlink,
        _ => Kind::Other,
    };
    let modified = time(stat.st_mtime as i64, stat.st_mtime_nsec as u32);
    FileStat {
        kind,
        len: stat.st_size as u64,
        modified,
        identity: (
            stat.st_ino as u64,
            stat.st_ctime as i64,
            stat.st_ctime_nsec as i64,
        ),
        links: stat.st_nlink as u64,
    }
}

#[cfg(not(unix))]
fn from_metadata(metadata: &std::fs::Metadata) -> FileStat {
    let file_type = metadata.file_type();
    let kind = if file_type.is_symlink() {
        Kind::Symlink
    } else if file_type.is_dir() {
        Kind::Directory
    } else if file_type.is_file() {
        Kind::File
    } else {
        Kind::Other
    };
    FileStat {
        kind,
        len: metadata.len(),
        modified: metadata.modified().ok(),
        identity: (0, 0, 0),
        links: 1,
    }
}

/// The time `seconds` and `nanoseconds` after the Unix epoch (before it when negative).
#[cfg(unix)]
fn time(seconds: i64, nanoseconds: u32) -> Option<SystemTime> {
    let epoch = SystemTime::UNIX_EPOCH;
    if seconds >= 0 {
        epoch.checked_add(Duration::new(seconds as u64, nanoseconds))
    } else {
        epoch
            .checked_sub(Duration::from_secs(seconds.unsigned_abs()))?
            .checked_add(Duration::from_nanos(u64::from(nanoseconds)))
    }
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::symlink;

    use super::*;

    fn opened(root: &RootDir, relative: &str) -> Option<String> {
        let (mut file, _) = open_file(root, Path::new(relative)).unwrap()?;
        let mut text = String::new();
        file.read_to_string(&mut text).unwrap();
        Some(text)
    }

    #[test]
    fn nothing_is_reached_through_a_symlink_or_out_of_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let root_path = dir.path().join("root");
        std::fs::create_dir_all(root_path.join("sub")).unwrap();
        std::fs::create_dir_all(dir.path().join("outside")).unwrap();
        std::fs::write(root_path.join("sub/a.txt"), "a").unwrap();
        std::fs::write(dir.path().join("outside/secret.txt"), "secret").unwrap();
        symlink("../outside", root_path.join("linkdir")).unwrap();
        symlink("sub/a.txt", root_path.join("inside-link.txt")).unwrap();
        symlink("../outside/secret.txt", root_path.join("out-link.txt")).unwrap();
        let root = RootDir::open(&root_path).unwrap();

        assert_eq!(opened(&root, "sub/a.txt").as_deref(), Some("a"));
        for refused in [
            "linkdir/secret.txt",
            "inside-link.txt",
            "out-link.txt",
            "sub",
            "missing.txt",
            "sub/missing.txt",
            "sub/a.txt/more",
        ] {
            assert_eq!(opened(&root, refused), None, "{refused}");
        }
        assert!(open_dir(&root, Path::new("sub")).unwrap().is_some());
        assert!(open_dir(&root, Path::new("linkdir")).unwrap().is_none());
        assert!(open_dir(&root, Path::new("")).unwrap().is_some());
        // `..` never gets as far as the kernel.
        assert!(
            open_file(&root, Path::new("../outside/secret.txt"))
                .unwrap()
                .is_none()
        );
    }

    /// A local writer swaps a directory of the path for a symlink to outside, again and again,
    /// while the path is opened: no open may ever reach the outside file. Bounded in count.
    #[test]
    fn a_directory_swapped_for_a_symlink_mid_open_never_leads_out() {
        use rustix::fs::{CWD, RenameFlags, renameat_with};
        let dir = tempfile::tempdir().unwrap();
        let root_path = dir.path().join("root");
        std::fs::create_dir_all(root_path.join("d")).unwrap();
        std::fs::create_dir_all(dir.path().join("outside")).unwrap();
        std::fs::write(root_path.join("d/x.txt"), "inside").unwrap();
        std::fs::write(dir.path().join("outside/x.txt"), "outside").unwrap();
        symlink(dir.path().join("outside"), root_path.join("s")).unwrap();
        let root = RootDir::open(&root_path).unwrap();
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let swapper = {
            let (stop, d, s) = (stop.clone(), root_path.join("d"), root_path.join("s"));
            std::thread::spawn(move || {
                let mut swaps = 0_u32;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) && swaps < 200_000 {
                    renameat_with(CWD, &d, CWD, &s, RenameFlags::EXCHANGE).unwrap();
                    swaps += 1;
                }
                swaps
            })
        };
        let (mut inside, mut refused) = (0, 0);
        for _ in 0..20_000 {
            for walk in [false, true] {
                let opened = if walk {
                    walk_beneath(&root, Path::new("d/x.txt"), common_flags()).map(Some)
                } else {
                    open_file(&root, Path::new("d/x.txt")).map(|o| o.map(|(file, _)| file))
                };
                match opened {
                    Ok(Some(mut file)) => {
                        let mut text = String::new();
                        file.read_to_string(&mut text).unwrap();
                        assert_eq!(text, "inside", "an open led out of the root");
                        inside += 1;
                    }
                    Ok(None) => refused += 1,
                    Err(error) => {
                        assert!(is_refusal(&error), "{error}");
                        refused += 1;
                    }
                }
            }
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let swaps = swapper.join().unwrap();
        assert!(
            swaps > 0 && inside > 0,
            "swaps {swaps}, inside {inside}, refused {refused}"
        );
    }

    #[test]
    fn the_walk_refuses_what_openat2_refuses() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/a.txt"), "a").unwrap();
        symlink("sub", dir.path().join("link")).unwrap();
        let root = RootDir::open(dir.path()).unwrap();
        let flags = common_flags();
        assert!(walk_beneath(&root, Path::new("sub/a.txt"), flags).is_ok());
        let error = walk_beneath(&root, Path::new("link/a.txt"), flags).unwrap_err();
        assert!(is_refusal(&error), "{error}");
        let error = walk_beneath(&root, Path::new("link"), flags).unwrap_err();
        assert!(is_refusal(&error), "{error}");
    }

    #[test]
    fn special_files_are_refused_without_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join(".gitignore");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
            0,
        )
        .unwrap();
        let root = RootDir::open(dir.path()).unwrap();
        // Both would block forever in `open` without O_NONBLOCK.
        assert!(open_file(&root, Path::new(".gitignore")).unwrap().is_none());
        assert!(matches!(
            read_small_file(&fifo, 1024),
            Err(SmallFileError::NotRegular)
        ));
        let big = dir.path().join("big");
        std::fs::write(&big, vec![b'x'; 2048]).unwrap();
        assert!(matches!(
            read_small_file(&big, 1024),
            Err(SmallFileError::TooLarge { len: 2048, .. })
        ));
        assert!(
            read_small_file(&dir.path().join("none"), 1024)
                .unwrap()
                .is_none()
        );
        symlink(&big, dir.path().join("link")).unwrap();
        assert!(matches!(
            read_small_file(&dir.path().join("link"), 4096),
            Err(SmallFileError::NotRegular)
        ));
    }

    #[test]
    fn entries_are_their_own_metadata() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f"), "12345").unwrap();
        std::fs::create_dir(dir.path().join("d")).unwrap();
        symlink("f", dir.path().join("l")).unwrap();
        let root = RootDir::open(dir.path()).unwrap();
        let handle = open_dir(&root, Path::new("")).unwrap().unwrap();
        let mut entries = entries(&handle).unwrap();
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        let kinds: Vec<(&str, Kind)> = entries
            .iter()
            .map(|entry| (entry.name.to_str().unwrap(), entry.stat.kind))
            .collect();
        assert_eq!(
            kinds,
            [
                ("d", Kind::Directory),
                ("f", Kind::File),
                ("l", Kind::Symlink)
            ]
        );
        assert_eq!(entries[1].stat.len, 5);
        assert_eq!(entries[1].stat.links, 1);
    }
}
