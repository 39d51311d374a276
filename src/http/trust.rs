//! The certificate authorities every HTTPS client trusts (a model provider, OTLP export,
//! `logs`, `chat`), decided here once so that they all agree; and, when a server's
//! certificate is not trusted, the words that say which variable to set.
//!
//! A client of an `https://` URL trusts, together:
//!
//! 1. the roots bundled in the binary (Mozilla's, through `webpki-roots`): a container with
//!    no CA store still reaches a public server;
//! 2. the system's CAs, found as OpenSSL finds them (`rustls-native-certs`, through
//!    reqwest's `rustls-tls-native-roots`): `SSL_CERT_FILE` and `SSL_CERT_DIR` when the
//!    shell sets them, else the system's bundle and folder (`/etc/ssl/certs/…`; the
//!    keychain on macOS, the certificate store on Windows);
//! 3. the PEM files named by `SSL_CERT_FILE` (a bundle), `SSL_CERT_DIR` (a folder of PEM
//!    files, or several joined by `:`) and `NODE_EXTRA_CA_CERTS` (Node's: a file of extra
//!    CAs), read as the command reads its other variables (the shell's, else the `.env`
//!    files'), and for OTLP export the signal's `OTEL_EXPORTER_OTLP_*CERTIFICATE`.
//!
//! The system's CAs come from `rustls-native-certs` rather than `rustls-platform-verifier`:
//! reqwest 0.12 takes the former as a feature (little code: a few files read), while the verifier would
//! mean building rustls' client configuration here by hand; and on Linux, where agent-sdk
//! meets company proxies (CI, containers), the verifier reads the same OpenSSL files but
//! replaces the bundled roots instead of adding to them. Loading the system's CAs costs a
//! few milliseconds per client (some 150 files parsed), so a client of a plain `http://`
//! URL loads none and reads no variable: a broken `NODE_EXTRA_CA_CERTS` never stops a run
//! against a local `http://` server.
//!
//! A variable that is set but names a file that cannot be read, or that holds no usable PEM
//! certificate, stops the command (exit 2) with the variable and the file named: the
//! connection would fail later as "not trusted", far from its cause. (Node only warns about
//! a broken `NODE_EXTRA_CA_CERTS` and goes on without it; its own warning still reaches the
//! serve log when the hooks' runtime starts.)

use std::path::Path;

use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::{self, PemObject};

use crate::exit_status::Exit;
use crate::text::untrusted::escape;

/// The variables every HTTPS client reads, in order: OpenSSL's and Node's, so that a
/// machine set up for either needs nothing more.
const SHARED: [(&str, Holds); 3] =
    [("SSL_CERT_FILE", Holds::File), ("SSL_CERT_DIR", Holds::Folders), ("NODE_EXTRA_CA_CERTS", Holds::File)];

/// What a variable names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Holds {
    /// A PEM file, a CA or many.
    File,
    /// Folders of PEM files, joined by `:` (`;` on Windows), as OpenSSL reads `SSL_CERT_DIR`.
    Folders,
}

/// What one HTTPS client trusts besides the bundled roots and the system's CAs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trust {
    /// Whether the client speaks HTTPS (one of a plain `http://` URL loads no CA at all).
    https: bool,
    /// The variables that added CAs, with what they named, in the order read.
    read: Vec<(String, String)>,
    certificates: Vec<CertificateDer<'static>>,
    /// The variables the advice for an untrusted certificate names, the first first.
    advice: [String; 2],
}

impl Trust {
    /// What a client of `url` trusts: for an `https://` URL, the CAs of the shared variables
    /// (`lookup` gives a variable's value; an empty one counts as unset).
    pub fn for_url(url: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Result<Trust, Exit> {
        let https = url.get(..8).is_some_and(|scheme| scheme.eq_ignore_ascii_case("https://"));
        let mut trust = Trust {
            https,
            read: Vec::new(),
            certificates: Vec::new(),
            advice: ["SSL_CERT_FILE".to_owned(), "NODE_EXTRA_CA_CERTS".to_owned()],
        };
        for (variable, holds) in SHARED {
            trust.add(variable, lookup(variable).as_deref(), holds)?;
        }
        Ok(trust)
    }

    /// Also the CAs of the PEM file `variable` names (`path`; `None`: it is not set), a
    /// client's own variable (OTLP's certificate), which the advice then names first.
    pub fn and_file(mut self, variable: &str, path: Option<&str>) -> Result<Trust, Exit> {
        self.add(variable, path, Holds::File)?;
        self.advice = [variable.to_owned(), "SSL_CERT_FILE".to_owned()];
        Ok(self)
    }

    fn add(&mut self, variable: &str, value: Option<&str>, holds: Holds) -> Result<(), Exit> {
        let Some(value) = value.filter(|value| !value.is_empty()) else { return Ok(()) };
        if !self.https {
            return Ok(());
        }
        let found = match holds {
            Holds::File => read_file(variable, Path::new(value))?,
            Holds::Folders => read_folders(variable, value)?,
        };
        for certificate in found {
            if !self.certificates.contains(&certificate) {
                self.certificates.push(certificate);
            }
        }
        self.read.push((variable.to_owned(), value.to_owned()));
        Ok(())
    }

    /// A client builder that trusts all of it; the caller adds its own settings.
    pub fn client(&self) -> reqwest::ClientBuilder {
        let builder = reqwest::Client::builder().tls_built_in_native_certs(self.https);
        self.certificates
            .iter()
            .filter_map(|der| reqwest::Certificate::from_der(der).ok())
            .fold(builder, reqwest::ClientBuilder::add_root_certificate)
    }

    /// When `error` (a request's, any of its causes) is a server certificate that no trusted
    /// CA issued: what to say of it, with the variables to set.
    pub fn untrusted(&self, error: &(dyn std::error::Error + 'static)) -> Option<String> {
        let reason = unknown_issuer(error)?;
        let read: Vec<&str> = self.read.iter().map(|(variable, _)| variable.as_str()).collect();
        let also = match read.as_slice() {
            [] => String::new(),
            [one] => format!(", not even with the CAs of {one}"),
            [most @ .., last] => format!(", not even with the CAs of {} and {last}", most.join(", ")),
        };
        let [first, second] = &self.advice;
        Some(format!(
            "the server's certificate is not trusted ({reason}){also}: set {first} or {second} to the PEM file of the CA that issued it"
        ))
    }
}

/// The TLS error of an unknown issuer, wherever it is among `error`'s causes. An I/O error
/// holds its cause without naming it as its source (its `source()` is its cause's), and
/// rustls' comes inside two of them, so an I/O error is looked into instead.
fn unknown_issuer<'a>(error: &'a (dyn std::error::Error + 'static)) -> Option<&'a rustls::Error> {
    let mut cause = Some(error);
    while let Some(current) = cause {
        if let Some(tls @ rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer)) =
            current.downcast_ref::<rustls::Error>()
        {
            return Some(tls);
        }
        cause = match current.downcast_ref::<std::io::Error>().and_then(std::io::Error::get_ref) {
            Some(inner) => Some(inner as &(dyn std::error::Error + 'static)),
            None => current.source(),
        };
    }
    None
}

/// The error of a variable whose file (or folder) cannot be used, and why.
fn broken(variable: &str, path: &Path, holds: Holds, why: &str) -> Exit {
    let wanted = match holds {
        Holds::File => "a PEM file of CA certificates",
        Holds::Folders => "a folder of PEM files of CA certificates",
    };
    Exit::usage(format!(
        "{variable} names `{}`, which {why}; set it to {wanted}, or unset it",
        escape(&path.to_string_lossy())
    ))
}

/// The certificates of the PEM file `path`, each one reqwest can take as a CA.
fn read_file(variable: &str, path: &Path) -> Result<Vec<CertificateDer<'static>>, Exit> {
    let bytes = std::fs::read(path).map_err(|error| {
        broken(variable, path, Holds::File, &format!("cannot be read: {}", crate::text::io_error::describe(&error)))
    })?;
    let (certificates, found) =
        certificates_in(&bytes).map_err(|why| broken(variable, path, Holds::File, &format!("is not PEM: {why}")))?;
    if found == 0 {
        return Err(broken(variable, path, Holds::File, "holds no PEM certificate (`-----BEGIN CERTIFICATE-----`)"));
    }
    if certificates.is_empty() {
        return Err(broken(variable, path, Holds::File, "holds no certificate that can be a CA"));
    }
    Ok(certificates)
}

/// The certificates of every PEM file in the folders `value` names; a file that is not PEM
/// is passed over (a certificate folder holds other files), a folder that cannot be read
/// is an error, and so is finding no certificate at all.
fn read_folders(variable: &str, value: &str) -> Result<Vec<CertificateDer<'static>>, Exit> {
    let mut certificates = Vec::new();
    let folders: Vec<_> = std::env::split_paths(value).filter(|folder| !folder.as_os_str().is_empty()).collect();
    for folder in &folders {
        let entries = std::fs::read_dir(folder).map_err(|error| {
            broken(
                variable,
                folder,
                Holds::Folders,
                &format!("cannot be read as a folder: {}", crate::text::io_error::describe(&error)),
            )
        })?;
        for entry in entries.flatten() {
            // Followed: `openssl rehash` makes a folder of links.
            let path = entry.path();
            if !std::fs::metadata(&path).is_ok_and(|metadata| metadata.is_file()) {
                continue;
            }
            let Ok(bytes) = std::fs::read(&path) else { continue };
            certificates.extend(certificates_in(&bytes).map(|(usable, _)| usable).unwrap_or_default());
        }
    }
    if certificates.is_empty() {
        let shown = Path::new(value);
        return Err(broken(variable, shown, Holds::Folders, "holds no file with a usable PEM certificate"));
    }
    Ok(certificates)
}

/// The PEM certificates in `bytes` that can be CAs (an ancient certificate that rustls
/// cannot read is left out, as with the system's) and how many there are in all; why the
/// PEM is malformed if it is.
fn certificates_in(bytes: &[u8]) -> Result<(Vec<CertificateDer<'static>>, usize), String> {
    let mut usable = Vec::new();
    let mut found = 0;
    for certificate in CertificateDer::pem_slice_iter(bytes) {
        let certificate = certificate.map_err(|error| match error {
            pem::Error::MissingSectionEnd { .. } => "a certificate has no `-----END` line".to_owned(),
            pem::Error::IllegalSectionStart { .. } => "a `-----BEGIN` line is malformed".to_owned(),
            pem::Error::Base64Decode(_) => "a certificate is not valid base64".to_owned(),
            other => other.to_string(),
        })?;
        found += 1;
        if rustls::RootCertStore::empty().add(certificate.clone()).is_ok() {
            usable.push(certificate);
        }
    }
    Ok((usable, found))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lookup(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let vars: Vec<(String, String)> = vars.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        move |name| vars.iter().find(|(key, _)| key == name).map(|(_, value)| value.clone())
    }

    #[test]
    fn a_plain_http_client_reads_no_variable() {
        let vars = lookup(&[("SSL_CERT_FILE", "/no/such/file.pem")]);
        let trust = Trust::for_url("http://127.0.0.1:11434/v1", &vars).unwrap();
        assert!(trust.read.is_empty() && trust.certificates.is_empty());
        let error = Trust::for_url("HTTPS://api.example/v1", &vars).unwrap_err();
        assert_eq!(
            error.message,
            "SSL_CERT_FILE names `/no/such/file.pem`, which cannot be read: it does not exist (or is a broken link); set it to a PEM file of CA certificates, or unset it"
        );
    }

    #[test]
    fn an_empty_variable_is_unset() {
        let trust = Trust::for_url("https://x", &lookup(&[("NODE_EXTRA_CA_CERTS", "")])).unwrap();
        assert!(trust.read.is_empty());
    }

    #[test]
    fn malformed_pem_is_said_in_words() {
        let cut = b"-----BEGIN CERTIFICATE-----\nMIIB\n";
        assert_eq!(certificates_in(cut).unwrap_err(), "a certificate has no `-----END` line");
        let bad = b"-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n";
        assert_eq!(certificates_in(bad).unwrap_err(), "a certificate is not valid base64");
        assert_eq!(certificates_in(b"just text").unwrap(), (Vec::new(), 0));
    }

    #[test]
    fn the_advice_names_the_client_s_own_variable_first() {
        let trust = Trust::for_url("http://c:4318", &lookup(&[])).unwrap();
        let trust = trust.and_file("OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE", None).unwrap();
        // As hyper-util hands it over: inside two I/O errors.
        let tls = rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer);
        let error = std::io::Error::other(std::io::Error::new(std::io::ErrorKind::InvalidData, tls));
        assert_eq!(
            trust.untrusted(&error).unwrap(),
            "the server's certificate is not trusted (invalid peer certificate: UnknownIssuer): set OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE or SSL_CERT_FILE to the PEM file of the CA that issued it"
        );
        let expired = std::io::Error::other(rustls::Error::InvalidCertificate(rustls::CertificateError::Expired));
        assert_eq!(trust.untrusted(&expired), None);
    }
}
