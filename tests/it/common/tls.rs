//! HTTPS on loopback for the tests: a private CA made in the test (as a company's proxy
//! has one), a certificate it issues for `127.0.0.1` and `localhost`, and a TLS front that
//! puts that certificate before one of the tests' plain servers (the model server, the OTLP
//! receiver, a dev server), passing each connection's bytes on once its handshake is done.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, KeyUsagePurpose};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio_rustls::rustls::{ServerConfig, crypto};

/// A CA of the test's own, its certificate in a PEM file, and a server certificate it issued.
pub struct TestCa {
    dir: tempfile::TempDir,
    server: Arc<ServerConfig>,
}

impl TestCa {
    pub fn new() -> TestCa {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, "agent-sdk tests' private CA");
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let ca_key = KeyPair::generate().unwrap();
        let ca = params.self_signed(&ca_key).unwrap();
        let issuer = Issuer::new(params, ca_key);

        let mut params = CertificateParams::new(vec!["127.0.0.1".to_owned(), "localhost".to_owned()]).unwrap();
        params.distinguished_name.push(DnType::CommonName, "127.0.0.1");
        let key = KeyPair::generate().unwrap();
        let certificate = params.signed_by(&key, &issuer).unwrap();

        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("ca.pem"), ca.pem()).unwrap();
        let provider = Arc::new(crypto::ring::default_provider());
        let server = ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(
                vec![CertificateDer::from(certificate.der().to_vec())],
                PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())),
            )
            .unwrap();
        TestCa { dir, server: Arc::new(server) }
    }

    /// The CA's certificate, a PEM file: what a user's `SSL_CERT_FILE` would name.
    pub fn pem_file(&self) -> PathBuf {
        self.dir.path().join("ca.pem")
    }

    /// A folder holding only [`TestCa::pem_file`]: what `SSL_CERT_DIR` would name.
    pub fn pem_folder(&self) -> PathBuf {
        let folder = self.dir.path().join("certs");
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::copy(self.pem_file(), folder.join("test-ca.pem")).unwrap();
        folder
    }

    /// A folder for the test's other files (a broken "CA file", say).
    pub fn scratch(&self) -> &Path {
        self.dir.path()
    }
}

/// HTTPS on a free port of 127.0.0.1 with [`TestCa`]'s server certificate, in front of the
/// plain server at `upstream`; stopped when dropped.
pub struct TlsFront {
    pub port: u16,
    handshakes: Arc<AtomicUsize>,
    _runtime: tokio::runtime::Runtime,
}

impl TlsFront {
    pub fn start(ca: &TestCa, upstream: SocketAddr) -> TlsFront {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
        let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
        let port = listener.local_addr().unwrap().port();
        let acceptor = TlsAcceptor::from(Arc::clone(&ca.server));
        let handshakes = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&handshakes);
        runtime.spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                counted.fetch_add(1, Ordering::SeqCst);
                let acceptor = acceptor.clone();
                tokio::spawn(async move {
                    // A client that does not trust the certificate ends here, before the
                    // server behind is reached.
                    let Ok(mut client) = acceptor.accept(client).await else { return };
                    let Ok(mut server) = tokio::net::TcpStream::connect(upstream).await else { return };
                    let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                });
            }
        });
        TlsFront { port, handshakes, _runtime: runtime }
    }

    /// `https://127.0.0.1:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("https://127.0.0.1:{}{path}", self.port)
    }

    /// How many connections clients opened (each tried a handshake).
    pub fn connections(&self) -> usize {
        self.handshakes.load(Ordering::SeqCst)
    }
}
