//! What compiling one module gives ([`Compiled`]: its code, the imports it makes at run
//! time, what it exports) or why it cannot run ([`Problem`]): the data the transform, the
//! linker, the cache and the module graph pass between them.

use super::exports::OwnExports;
use super::resolver::ImportKind;

/// One import the module makes at run time.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Import {
    pub specifier: String,
    pub kind: ImportKind,
    /// Byte span of the specifier's string literal in the source.
    pub span: (u32, u32),
    /// The names a static `import { … }` or `export { … } from` takes from the module
    /// (`default` for a default import), which it must export for the importer to link.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<ImportedName>,
}

/// One name an import takes from the module it imports.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ImportedName {
    pub name: String,
    /// Byte span of the name in the source.
    pub span: (u32, u32),
}

/// A module ready for Node.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Compiled {
    /// JavaScript with an inline source map; `None` for JavaScript Node runs as it is.
    pub code: Option<String>,
    pub imports: Vec<Import>,
    /// What the module's own text exports, as Node would link it (see [`exports`]).
    ///
    /// [`exports`]: super::exports
    pub exports: OwnExports,
}

/// Why a module cannot run.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Problem {
    pub kind: ProblemKind,
    pub span: Option<(u32, u32)>,
    pub message: String,
    pub help: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ProblemKind {
    /// Not valid TypeScript/JavaScript.
    Syntax,
    /// Valid, but Node 20 cannot run it and it cannot be lowered.
    Unsupported,
}

/// What [`compile`](super::transform::compile) produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Output {
    /// The code Node will run.
    Code,
    /// Only the imports, exports and problems (`validate`): no code is generated.
    Check,
}
