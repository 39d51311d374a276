//! Whether writing at a path of a folder would follow a symbolic link out of the folder:
//! what `init` and `sdk` ask before they write, so that a link in a project (to a linked
//! workspace package, to a folder elsewhere, or to nowhere yet) never makes them write
//! outside it.

use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

/// A link on the way to a path that leads out of the folder the path is in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkOut {
    /// The link, as a path in the folder (the path written to, or a folder above it).
    pub link: PathBuf,
    /// Where it leads, every link followed (to where a file would be created, when nothing
    /// is there yet).
    pub leads_to: PathBuf,
}

/// The first link on the way from `folder` to `path` (a path in it) that leads out of
/// `folder`, as writing `path` would follow it: `path` itself, when it is one (to nowhere
/// too: writing creates its target), or a folder between. `None` when every link on the
/// way stays inside (or there is none).
pub fn link_out(folder: &Path, path: &Path) -> Option<LinkOut> {
    let inside = destination(folder)?;
    let relative = path.strip_prefix(folder).ok()?;
    let mut on_the_way = folder.to_path_buf();
    for component in relative.components() {
        on_the_way.push(component);
        if !std::fs::symlink_metadata(&on_the_way).is_ok_and(|metadata| metadata.is_symlink()) {
            continue;
        }
        // A loop leads nowhere: writing through it fails, outside or in.
        let Some(leads_to) = destination(&on_the_way) else { continue };
        if !leads_to.starts_with(&inside) {
            return Some(LinkOut { link: on_the_way, leads_to });
        }
    }
    None
}

/// How many links a path may go through, as Linux allows (`MAXSYMLINKS`).
const MOST_LINKS: usize = 40;

/// Where `path` leads with every link on it followed, as the system would resolve it to
/// create a file there: what exists is resolved, what does not is kept as it is written.
/// `None` for a loop of links (or more than [`MOST_LINKS`]).
pub fn destination(path: &Path) -> Option<PathBuf> {
    let mut resolved = PathBuf::new();
    // Still to walk, last component first.
    let mut pending: Vec<OsString> = Vec::new();
    push_components(&mut pending, &std::path::absolute(path).ok()?);
    let mut links = 0;
    while let Some(component) = pending.pop() {
        match component.to_str() {
            Some("/") => resolved = PathBuf::from("/"),
            Some(".") => {}
            Some("..") => {
                resolved.pop();
            }
            _ => {
                let next = resolved.join(&component);
                match std::fs::read_link(&next) {
                    Ok(target) => {
                        links += 1;
                        if links > MOST_LINKS {
                            return None;
                        }
                        push_components(&mut pending, &target);
                    }
                    // A file, a folder, or nothing (yet).
                    Err(_) => resolved = next,
                }
            }
        }
    }
    Some(resolved)
}

/// Pushes the components of `path` onto `pending` so that its first is popped first; an
/// absolute path starts again from `/`.
fn push_components(pending: &mut Vec<OsString>, path: &Path) {
    for component in path.components().rev() {
        pending.push(match component {
            Component::RootDir | Component::Prefix(_) => OsString::from("/"),
            Component::CurDir => OsString::from("."),
            Component::ParentDir => OsString::from(".."),
            Component::Normal(name) => name.to_owned(),
        });
    }
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::symlink;

    use super::*;

    #[test]
    fn links_inside_are_followed_and_the_first_that_leaves_is_named() {
        let root = tempfile::tempdir().unwrap();
        let (project, outside) = (root.path().join("project"), root.path().join("outside"));
        std::fs::create_dir_all(project.join("real/deeper")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        symlink("real", project.join("inside")).unwrap();
        symlink("../outside", project.join("out")).unwrap();
        symlink("../outside/new.ts", project.join("dangling")).unwrap();
        assert_eq!(link_out(&project, &project.join("inside/deeper/file.ts")), None);
        assert_eq!(link_out(&project, &project.join("not/yet/there.ts")), None);
        let out = link_out(&project, &project.join("out/x/file.ts")).unwrap();
        assert_eq!((out.link, out.leads_to), (project.join("out"), outside.canonicalize().unwrap()));
        let dangling = link_out(&project, &project.join("dangling")).unwrap();
        assert_eq!(dangling.leads_to, outside.canonicalize().unwrap().join("new.ts"));
    }

    #[test]
    fn a_chain_of_links_to_nowhere_is_followed_to_its_end_and_a_loop_leads_nowhere() {
        let root = tempfile::tempdir().unwrap();
        let project = root.path().join("project");
        std::fs::create_dir_all(&project).unwrap();
        symlink("second", project.join("first")).unwrap();
        symlink("../../elsewhere/file", project.join("second")).unwrap();
        let out = link_out(&project, &project.join("first")).unwrap();
        assert_eq!(out.leads_to, root.path().canonicalize().unwrap().parent().unwrap().join("elsewhere/file"));
        symlink("loop-b", project.join("loop-a")).unwrap();
        symlink("loop-a", project.join("loop-b")).unwrap();
        assert_eq!(destination(&project.join("loop-a")), None);
        assert_eq!(link_out(&project, &project.join("loop-a/file")), None);
    }
}
