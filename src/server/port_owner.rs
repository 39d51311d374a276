//! Who holds the port `dev` cannot listen on: when it is another `agent-sdk dev` (or `bdk
//! dev`), its pid, where it was started and how, read from `/proc` (the listening socket's
//! inode in `/proc/net/tcp*`, then the process holding it). Elsewhere, or when `/proc`
//! does not say, nothing is named. The TCP table and who holds a socket are read here only.

use std::path::{Path, PathBuf};

/// Another agent-sdk server on the port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OtherServer {
    pub pid: u32,
    /// Its working directory.
    pub cwd: PathBuf,
    /// Its command line, as words.
    pub command: Vec<String>,
}

impl std::fmt::Display for OtherServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let command =
            self.command.iter().map(|word| crate::text::untrusted::escape(word)).collect::<Vec<_>>().join(" ");
        write!(
            f,
            "pid {}, started in {} as `{command}`",
            self.pid,
            crate::text::untrusted::escape(&self.cwd.to_string_lossy())
        )
    }
}

/// The agent-sdk process listening on TCP `port`, if one is.
pub fn agent_sdk_on(port: u16) -> Option<OtherServer> {
    let inodes: Vec<String> = tcp_sockets(Path::new("/proc/net"))
        .into_iter()
        .filter(|socket| socket.state == LISTEN && socket.local_port == port)
        .map(|socket| socket.inode)
        .collect();
    if inodes.is_empty() {
        return None;
    }
    let processes = std::fs::read_dir("/proc").ok()?;
    for entry in processes.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|name| name.parse::<u32>().ok()) else { continue };
        if !holds_socket(pid, &inodes) {
            continue;
        }
        let command: Vec<String> = std::fs::read(entry.path().join("cmdline"))
            .unwrap_or_default()
            .split(|byte| *byte == 0)
            .filter(|word| !word.is_empty())
            .map(|word| String::from_utf8_lossy(word).into_owned())
            .collect();
        let program = command.first().map(|first| Path::new(first).file_name().unwrap_or_default().to_string_lossy());
        if !program.is_some_and(|name| name == "agent-sdk" || name == "bdk") {
            return None;
        }
        let cwd = std::fs::read_link(entry.path().join("cwd")).unwrap_or_default();
        return Some(OtherServer { pid, cwd, command });
    }
    None
}

/// The state of a listening socket in `/proc/net/tcp`.
pub const LISTEN: &str = "0A";
/// The state of an established connection in `/proc/net/tcp`.
pub const ESTABLISHED: &str = "01";

/// One TCP socket of the system, as `/proc/net/tcp*` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TcpSocket {
    pub local_port: u16,
    pub remote_port: u16,
    /// `0A` listening, `01` established, …
    pub state: String,
    pub inode: String,
}

/// The TCP sockets `tcp` and `tcp6` under `net` (`/proc/net`) list.
pub fn tcp_sockets(net: &Path) -> Vec<TcpSocket> {
    let tables = ["tcp", "tcp6"].map(|table| std::fs::read_to_string(net.join(table)).unwrap_or_default());
    tables.iter().flat_map(|text| text.lines().skip(1).filter_map(tcp_socket)).collect()
}

/// A line of `/proc/net/tcp`: `sl local_address rem_address st … inode`, each address as
/// `HEX_IP:HEX_PORT`.
fn tcp_socket(line: &str) -> Option<TcpSocket> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let port = |address: &str| u16::from_str_radix(address.rsplit(':').next()?, 16).ok();
    Some(TcpSocket {
        local_port: port(fields.get(1)?)?,
        remote_port: port(fields.get(2)?)?,
        state: (*fields.get(3)?).to_owned(),
        inode: (*fields.get(9)?).to_owned(),
    })
}

/// Whether process `pid` holds one of the sockets `inodes` names.
pub fn holds_socket(pid: u32, inodes: &[String]) -> bool {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else { return false };
    fds.flatten().any(|fd| {
        std::fs::read_link(fd.path()).is_ok_and(|target| {
            let target = target.to_string_lossy();
            inodes.iter().any(|inode| target == format!("socket:[{inode}]"))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_of_the_tcp_table_gives_its_ports_state_and_inode() {
        let listen = "   0: 0100007F:1C8F 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 123456 1 0000000000000000 100 0 0 10 0";
        let connected = "   1: 0100007F:1C8F 0100007F:D431 01 00000000:00000000 00:00000000 00000000     0        0 123457 1 0000000000000000 20 4 30 10 -1";
        let socket = |local_port, remote_port, state: &str, inode: &str| TcpSocket {
            local_port,
            remote_port,
            state: state.to_owned(),
            inode: inode.to_owned(),
        };
        assert_eq!(tcp_socket(listen), Some(socket(7311, 0, LISTEN, "123456")));
        assert_eq!(tcp_socket(connected), Some(socket(7311, 54321, ESTABLISHED, "123457")));
        assert_eq!(tcp_socket("  sl  local_address rem_address   st"), None);
    }

    #[test]
    fn this_process_listening_is_found_when_it_is_agent_sdk_only() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let sockets = tcp_sockets(Path::new("/proc/net"));
        let inodes: Vec<String> = sockets
            .into_iter()
            .filter(|socket| socket.state == LISTEN && socket.local_port == port)
            .map(|socket| socket.inode)
            .collect();
        assert!(holds_socket(std::process::id(), &inodes));
        // The test binary is not agent-sdk: nothing is named.
        assert_eq!(agent_sdk_on(port), None);
    }
}
