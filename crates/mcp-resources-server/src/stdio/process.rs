//! The process's stdin and stdout as async byte streams, read and written on the loop's own
//! thread whenever the platform allows it.
//!
//! **Layer:** server, part of the stdio transport. MCP clients start a server with its stdin and
//! stdout connected to pipes (or, from Node.js, to Unix sockets). Such a descriptor is switched
//! to non-blocking mode and registered with the runtime's reactor, so that a request costs one
//! `read` and its reply one `write`, both on the thread that runs the loop: no thread hands a
//! chunk to another, which is what `tokio::io::stdin`/`stdout` do for every read and every
//! flush (they run blocking calls on the runtime's blocking pool). Anything else (a terminal, a
//! regular file, a non-Unix platform) falls back to blocking I/O: stdin on a thread of its own,
//! stdout through `tokio::io::stdout`.
//!
//! Non-blocking mode is a property of the open file description, which the client may share
//! (a shell's pipe, for one): [`Input::restore`] and [`Output::restore`] put the descriptors
//! back in blocking mode when serving ends. This module knows nothing of JSON-RPC, lines or
//! eras.

use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::mpsc;

/// The size of one chunk read by the fallback stdin thread.
const CHUNK_SIZE: usize = 64 * 1024;

/// Stdin and stdout, as the loop reads and writes them.
pub(super) struct StdioStreams {
    pub(super) input: Input,
    pub(super) output: Output,
}

impl StdioStreams {
    /// Opens the process's stdin and stdout: non-blocking pipes or sockets where possible,
    /// blocking I/O otherwise. Never fails: a descriptor that cannot be made non-blocking is
    /// served the blocking way.
    pub(super) fn open() -> StdioStreams {
        let input = reactor::stdin().unwrap_or_else(|| Input::Thread(thread_reader()));
        let output = reactor::stdout().unwrap_or_else(|| Output::Blocking(tokio::io::stdout()));
        tracing::debug!(
            input = input.kind(),
            output = output.kind(),
            "stdio streams opened"
        );
        StdioStreams { input, output }
    }
}

/// Stdin.
pub(super) enum Input {
    /// A pipe registered with the reactor.
    #[cfg(unix)]
    Pipe(tokio::net::unix::pipe::Receiver),
    /// A Unix socket registered with the reactor.
    #[cfg(unix)]
    Socket(tokio::net::UnixStream),
    /// Blocking reads on a thread of its own, handed over in chunks.
    Thread(ThreadReader),
}

/// Stdout.
pub(super) enum Output {
    /// A pipe registered with the reactor.
    #[cfg(unix)]
    Pipe(tokio::net::unix::pipe::Sender),
    /// A Unix socket registered with the reactor.
    #[cfg(unix)]
    Socket(tokio::net::UnixStream),
    /// `tokio::io::stdout`: blocking writes on the runtime's blocking pool.
    Blocking(tokio::io::Stdout),
}

impl Input {
    fn kind(&self) -> &'static str {
        match self {
            #[cfg(unix)]
            Input::Pipe(_) => "pipe",
            #[cfg(unix)]
            Input::Socket(_) => "socket",
            Input::Thread(_) => "blocking (reader thread)",
        }
    }

    /// Puts a non-blocking descriptor back in blocking mode, for whoever shares it after us.
    pub(super) fn restore(self) {
        match self {
            #[cfg(unix)]
            Input::Pipe(pipe) => reactor::restore_pipe_receiver(pipe),
            #[cfg(unix)]
            Input::Socket(socket) => reactor::restore_socket(socket),
            Input::Thread(_) => {}
        }
    }
}

impl Output {
    fn kind(&self) -> &'static str {
        match self {
            #[cfg(unix)]
            Output::Pipe(_) => "pipe",
            #[cfg(unix)]
            Output::Socket(_) => "socket",
            Output::Blocking(_) => "blocking (tokio stdout)",
        }
    }

    /// Puts a non-blocking descriptor back in blocking mode, for whoever shares it after us.
    pub(super) fn restore(self) {
        match self {
            #[cfg(unix)]
            Output::Pipe(pipe) => reactor::restore_pipe_sender(pipe),
            #[cfg(unix)]
            Output::Socket(socket) => reactor::restore_socket(socket),
            Output::Blocking(_) => {}
        }
    }
}

impl AsyncRead for Input {
    fn poll_read(
        self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            #[cfg(unix)]
            Input::Pipe(pipe) => Pin::new(pipe).poll_read(context, buf),
            #[cfg(unix)]
            Input::Socket(socket) => Pin::new(socket).poll_read(context, buf),
            Input::Thread(reader) => Pin::new(reader).poll_read(context, buf),
        }
    }
}

impl AsyncWrite for Output {
    fn poll_write(
        self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        match self.get_mut() {
            #[cfg(unix)]
            Output::Pipe(pipe) => Pin::new(pipe).poll_write(context, buf),
            #[cfg(unix)]
            Output::Socket(socket) => Pin::new(socket).poll_write(context, buf),
            Output::Blocking(stdout) => Pin::new(stdout).poll_write(context, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            #[cfg(unix)]
            Output::Pipe(pipe) => Pin::new(pipe).poll_flush(context),
            #[cfg(unix)]
            Output::Socket(socket) => Pin::new(socket).poll_flush(context),
            Output::Blocking(stdout) => Pin::new(stdout).poll_flush(context),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            // Shutting a pipe or socket down would close it for the client's other readers
            // too; flushing is all that is owed at the end.
            #[cfg(unix)]
            Output::Pipe(pipe) => Pin::new(pipe).poll_flush(context),
            #[cfg(unix)]
            Output::Socket(socket) => Pin::new(socket).poll_flush(context),
            Output::Blocking(stdout) => Pin::new(stdout).poll_shutdown(context),
        }
    }
}

/// Stdin read by a thread of its own, in large chunks: the fallback for a terminal or a file.
///
/// `tokio::io::stdin` reads on the runtime's blocking pool, and a read blocked on an idle stdin
/// can be neither interrupted nor abandoned: the runtime would wait for it on shutdown. A
/// detached thread can be left behind when the server stops for another reason than the end of
/// the input, and it reads whole chunks, so a burst of lines costs one hand-off.
pub(super) type ThreadReader =
    tokio_util::io::StreamReader<futures_util::stream::PollFn<NextChunk>, bytes::Bytes>;

/// Polls the reader thread for its next chunk.
type NextChunk =
    Box<dyn FnMut(&mut Context<'_>) -> Poll<Option<std::io::Result<bytes::Bytes>>> + Send>;

fn thread_reader() -> ThreadReader {
    let (sender, receiver) = mpsc::channel::<std::io::Result<bytes::Bytes>>(4);
    let spawned = std::thread::Builder::new()
        .name("mcp-stdin".to_owned())
        .spawn(move || {
            let mut stdin = std::io::stdin().lock();
            let mut chunk = vec![0_u8; CHUNK_SIZE];
            loop {
                let read = match std::io::Read::read(&mut stdin, &mut chunk) {
                    Ok(0) => return,
                    Ok(read) => read,
                    Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(error) => {
                        let _ = sender.blocking_send(Err(error));
                        return;
                    }
                };
                let bytes = bytes::Bytes::copy_from_slice(&chunk[..read]);
                if sender.blocking_send(Ok(bytes)).is_err() {
                    return;
                }
            }
        });
    let mut receiver = match spawned {
        Ok(_) => Some(receiver),
        Err(error) => {
            tracing::error!(%error, "cannot start the stdin reader thread");
            None
        }
    };
    let poll: NextChunk = Box::new(move |context| match &mut receiver {
        Some(receiver) => receiver.poll_recv(context),
        None => Poll::Ready(Some(Err(std::io::Error::other(
            "the stdin reader thread could not start",
        )))),
    });
    tokio_util::io::StreamReader::new(futures_util::stream::poll_fn(poll))
}

/// Registering stdin and stdout with the reactor (Unix).
#[cfg(unix)]
mod reactor {
    use std::os::fd::{AsFd, OwnedFd};
    use std::os::unix::fs::FileTypeExt;

    use tokio::net::unix::pipe;

    use super::{Input, Output};

    /// What a descriptor is, as far as registering it goes.
    enum Kind {
        Pipe,
        Socket,
        Other,
    }

    /// A duplicate of `fd` (sharing its open file description) and what it is.
    fn duplicate(fd: std::os::fd::BorrowedFd<'_>) -> Option<(OwnedFd, Kind)> {
        let owned = fd.try_clone_to_owned().ok()?;
        let file = std::fs::File::from(owned);
        let kind = match file.metadata() {
            Ok(metadata) if metadata.file_type().is_fifo() => Kind::Pipe,
            Ok(metadata) if metadata.file_type().is_socket() => Kind::Socket,
            _ => Kind::Other,
        };
        Some((OwnedFd::from(file), kind))
    }

    fn socket(fd: OwnedFd) -> Option<tokio::net::UnixStream> {
        let socket = std::os::unix::net::UnixStream::from(fd);
        socket.set_nonblocking(true).ok()?;
        tokio::net::UnixStream::from_std(socket).ok()
    }

    pub(super) fn stdin() -> Option<Input> {
        let stdin = std::io::stdin();
        let (fd, kind) = duplicate(stdin.as_fd())?;
        let input = match kind {
            Kind::Pipe => pipe::Receiver::from_owned_fd(fd).ok().map(Input::Pipe),
            Kind::Socket => socket(fd).map(Input::Socket),
            Kind::Other => None,
        };
        if input.is_none() {
            tracing::debug!("stdin is served with blocking reads");
        }
        input
    }

    pub(super) fn stdout() -> Option<Output> {
        let stdout = std::io::stdout();
        let (fd, kind) = duplicate(stdout.as_fd())?;
        match kind {
            Kind::Pipe => pipe::Sender::from_owned_fd(fd).ok().map(Output::Pipe),
            Kind::Socket => socket(fd).map(Output::Socket),
            Kind::Other => None,
        }
    }

    pub(super) fn restore_pipe_receiver(pipe: pipe::Receiver) {
        if let Err(error) = pipe.into_blocking_fd() {
            tracing::debug!(%error, "cannot put stdin back in blocking mode");
        }
    }

    pub(super) fn restore_pipe_sender(pipe: pipe::Sender) {
        if let Err(error) = pipe.into_blocking_fd() {
            tracing::debug!(%error, "cannot put stdout back in blocking mode");
        }
    }

    pub(super) fn restore_socket(socket: tokio::net::UnixStream) {
        let restored = socket
            .into_std()
            .and_then(|socket| socket.set_nonblocking(false));
        if let Err(error) = restored {
            tracing::debug!(%error, "cannot put a stdio socket back in blocking mode");
        }
    }
}

/// Without Unix descriptors, stdin and stdout are always served the blocking way.
#[cfg(not(unix))]
mod reactor {
    use super::{Input, Output};

    pub(super) fn stdin() -> Option<Input> {
        None
    }

    pub(super) fn stdout() -> Option<Output> {
        None
    }
}
