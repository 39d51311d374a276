//! Who holds the port `dev` cannot listen on: when it is another `agent-sdk dev` (or `bdk
//! dev`), its pid, where it was started and how, read from `/proc` (the listening socket's
//! inode in `/proc/net/tcp*`, then the process holding it). Elsewhere, or when `/proc`
//! does not say, nothing is named.

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
        let command = self.command.iter().map(|word| crate::untrusted::escape(word)).collect::<Vec<_>>().join(" ");
        write!(
            f,
            "pid {}, started in {} as `{command}`",
            self.pid,
            crate::untrusted::escape(&self.cwd.to_string_lossy())
        )
    }
}

/// The agent-sdk process listening on TCP `port`, if one is.
pub fn agent_sdk_on(port: u16) -> Option<OtherServer> {
    let inodes = listening_inodes(Path::new("/proc/net"), port);
    if inodes.is_empty() {
        return None;
    }
    let processes = std::fs::read_dir("/proc").ok()?;
    for entry in processes.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|name| name.parse::<u32>().ok()) else { continue };
        let Ok(fds) = std::fs::read_dir(entry.path().join("fd")) else { continue };
        let holds = fds.flatten().any(|fd| {
            std::fs::read_link(fd.path()).is_ok_and(|target| {
                let target = target.to_string_lossy();
                inodes.iter().any(|inode| target == format!("socket:[{inode}]"))
            })
        });
        if !holds {
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

/// The inodes of the sockets listening on `port`, from `tcp` and `tcp6` under `net`.
fn listening_inodes(net: &Path, port: u16) -> Vec<String> {
    let mut inodes = Vec::new();
    for table in ["tcp", "tcp6"] {
        let Ok(text) = std::fs::read_to_string(net.join(table)) else { continue };
        inodes.extend(text.lines().skip(1).filter_map(|line| listening_on(line, port)));
    }
    inodes
}

/// A line of `/proc/net/tcp`: `sl local_address rem_address st … inode`, the address as
/// `HEX_IP:HEX_PORT`, state `0A` for LISTEN.
fn listening_on(line: &str, port: u16) -> Option<String> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let local_port = fields.get(1)?.rsplit(':').next()?;
    if *fields.get(3)? != "0A" || u16::from_str_radix(local_port, 16).ok()? != port {
        return None;
    }
    fields.get(9).map(|inode| (*inode).to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listening_line_of_the_port_gives_its_inode() {
        let listen = "   0: 0100007F:1C8F 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 123456 1 0000000000000000 100 0 0 10 0";
        let connected = "   1: 0100007F:1C8F 0100007F:D431 01 00000000:00000000 00:00000000 00000000     0        0 123457 1 0000000000000000 20 4 30 10 -1";
        assert_eq!(listening_on(listen, 7311), Some("123456".to_owned()));
        assert_eq!(listening_on(listen, 7312), None);
        assert_eq!(listening_on(connected, 7311), None);
    }

    #[test]
    fn this_process_listening_is_found_when_it_is_agent_sdk_only() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        assert!(!listening_inodes(Path::new("/proc/net"), port).is_empty());
        // The test binary is not agent-sdk: nothing is named.
        assert_eq!(agent_sdk_on(port), None);
    }
}
