//! JSON Web Tokens checked against given keys: the [`TokenVerifier`] the binary uses, behind
//! the `auth` feature (it brings the `jsonwebtoken` crate).
//!
//! **Layer:** server, HTTP transport, bearer authorization. It turns a token into a
//! [`Principal`] or a reason to refuse it; it never sees a request, a session or a policy, and
//! never fetches a key.
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::jwk::{AlgorithmParameters, JwkSet, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use mcp_resources_core::policy::Principal;
use serde::Deserialize;

use super::verify::{AuthorizationError, TokenRejected, TokenVerifier};

/// The shortest HMAC secret taken, in bytes (RFC 7518 §3.2 asks for at least the hash's size).
const MIN_HMAC_SECRET: usize = 32;

/// Checks JSON Web Tokens (RFC 7519) signed with given keys: the `typ` header, when present
/// (`at+jwt` or `application/at+jwt`, RFC 9068), the signature (by the key the token's `kid`
/// names, or any key of its algorithm), `exp` (required, with a minute of leeway for clock
/// skew), `nbf` when present, `iss` among the issuers, `aud` holding the audience, and `sub`
/// (required, not empty). The principal's subject is `sub`; its scopes come from `scope` (a space-separated
/// string) or `scp` (a list or a string); its claims are the other claims whose values are
/// strings.
#[derive(Clone)]
pub struct JwtVerifier {
    audience: String,
    issuers: Vec<String>,
    keys: Vec<VerifyingKey>,
}

#[derive(Clone)]
struct VerifyingKey {
    kid: Option<String>,
    key: DecodingKey,
    algorithms: Vec<Algorithm>,
}

impl fmt::Debug for JwtVerifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never the keys: a shared secret would end up in logs.
        f.debug_struct("JwtVerifier")
            .field("audience", &self.audience)
            .field("issuers", &self.issuers)
            .field("keys", &self.keys.len())
            .finish()
    }
}

impl JwtVerifier {
    /// A verifier of tokens for `audience` (the server's [`Authorization::resource`](super::Authorization::resource)) from
    /// `issuers`, with no key yet.
    pub fn new(audience: impl Into<String>, issuers: Vec<String>) -> JwtVerifier {
        JwtVerifier {
            audience: audience.into(),
            issuers,
            keys: Vec::new(),
        }
    }

    /// Adds the public keys of a JSON Web Key Set (RFC 7517: what an authorization server
    /// publishes at its `jwks_uri`). A key that names its algorithm (`alg`) is used for that
    /// one only; one that does not, for every algorithm of its type.
    ///
    /// # Errors
    ///
    /// When the text is not a key set, or a key in it cannot be used.
    pub fn with_jwks(mut self, jwks: &str) -> Result<JwtVerifier, AuthorizationError> {
        let set: JwkSet = serde_json::from_str(jwks)
            .map_err(|error| AuthorizationError::Key(format!("not a JSON Web Key Set: {error}")))?;
        let before = self.keys.len();
        for jwk in &set.keys {
            let kid = jwk.common.key_id.clone();
            let name = kid.as_deref().unwrap_or("without a kid");
            // A key set may hold encryption keys too: they never check a signature.
            if matches!(
                &jwk.common.public_key_use,
                Some(PublicKeyUse::Encryption | PublicKeyUse::Other(_))
            ) {
                tracing::debug!(key = name, "a key that is not for signatures is left out");
                continue;
            }
            let key = DecodingKey::from_jwk(jwk).map_err(|error| {
                AuthorizationError::Key(format!("key {name} cannot be used: {error}"))
            })?;
            if let AlgorithmParameters::OctetKey(_) = &jwk.algorithm {
                let length = key.try_get_as_bytes().map_or(0, <[u8]>::len);
                if length < MIN_HMAC_SECRET {
                    return Err(AuthorizationError::Key(format!(
                        "key {name}: an HMAC secret needs at least {MIN_HMAC_SECRET} bytes"
                    )));
                }
            }
            // A key serves the algorithms of its own type only, so that no token can have it
            // read as another kind of key (an HMAC secret made of a public key, say).
            let algorithms = match jwk.common.key_algorithm {
                Some(algorithm) => {
                    let algorithm = Algorithm::try_from(algorithm)
                        .map_err(|error| AuthorizationError::Key(format!("key {name}: {error}")))?;
                    if algorithm.family() != key.family() {
                        return Err(AuthorizationError::Key(format!(
                            "key {name}: its alg {algorithm:?} is not for a key of its type"
                        )));
                    }
                    vec![algorithm]
                }
                None => key.family().algorithms().to_vec(),
            };
            self.keys.push(VerifyingKey {
                kid,
                key,
                algorithms,
            });
        }
        if self.keys.len() == before {
            return Err(AuthorizationError::Key(
                "the key set holds no signature key".to_owned(),
            ));
        }
        Ok(self)
    }

    /// Adds a secret shared with the authorization server, for HMAC-signed tokens (HS256,
    /// HS384, HS512).
    ///
    /// # Errors
    ///
    /// When the secret is shorter than 32 bytes: a shorter one can be guessed.
    pub fn with_hmac_secret(mut self, secret: &[u8]) -> Result<JwtVerifier, AuthorizationError> {
        if secret.len() < MIN_HMAC_SECRET {
            return Err(AuthorizationError::Key(format!(
                "an HMAC secret needs at least {MIN_HMAC_SECRET} bytes"
            )));
        }
        let key = DecodingKey::from_secret(secret)
            .map_err(|error| AuthorizationError::Key(format!("HMAC secret: {error}")))?;
        self.keys.push(VerifyingKey {
            kid: None,
            key,
            algorithms: vec![Algorithm::HS256, Algorithm::HS384, Algorithm::HS512],
        });
        Ok(self)
    }

    /// How many keys it checks signatures with.
    pub fn key_count(&self) -> usize {
        self.keys.len()
    }
}

/// The claims a principal is made of; the others are kept as text (numbers too, such as
/// `exp`).
#[derive(Deserialize)]
struct Claims {
    sub: String,
    /// One issuer, a string (jsonwebtoken alone would also take a list holding a configured
    /// one).
    iss: String,
    scope: Option<String>,
    scp: Option<Scopes>,
    #[serde(flatten)]
    other: BTreeMap<String, serde_json::Value>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Scopes {
    List(Vec<String>),
    Text(String),
}

impl TokenVerifier for JwtVerifier {
    fn verify(&self, token: &str) -> Result<Principal, TokenRejected> {
        let header = jsonwebtoken::decode_header(token)
            .map_err(|error| TokenRejected(format!("unreadable header: {error}")))?;
        if let Some(typ) = header
            .typ
            .as_deref()
            .filter(|typ| !is_access_token_type(typ))
        {
            return Err(TokenRejected(format!(
                "typ {typ:?} is not that of an access token (at+jwt)"
            )));
        }
        let mut validation = Validation::new(header.alg);
        validation.set_audience(&[&self.audience]);
        validation.set_issuer(&self.issuers);
        // `sub` too: a legacy session is bound to its token's subject, and two tokens without
        // one could not be told apart.
        validation.set_required_spec_claims(&["exp", "aud", "iss", "sub"]);
        validation.validate_nbf = true;
        let mut last = TokenRejected(format!("no key for algorithm {:?}", header.alg));
        let candidates = self.keys.iter().filter(|key| {
            key.algorithms.contains(&header.alg)
                && (header.kid.is_none() || key.kid.is_none() || key.kid == header.kid)
        });
        for key in candidates {
            match jsonwebtoken::decode::<Claims>(token, &key.key, &validation) {
                // An empty subject would bind a legacy session to nobody in particular.
                Ok(data) if data.claims.sub.is_empty() => {
                    return Err(TokenRejected("the sub claim is empty".to_owned()));
                }
                Ok(data) => return Ok(principal(data.claims)),
                Err(error) => {
                    // Claims are looked at once the signature checked out: such a failure is
                    // the token's. Any other may be this key's, and another key may still fit.
                    let of_the_claims = matches!(
                        error.kind(),
                        ErrorKind::ExpiredSignature
                            | ErrorKind::ImmatureSignature
                            | ErrorKind::InvalidIssuer
                            | ErrorKind::InvalidAudience
                            | ErrorKind::InvalidSubject
                            | ErrorKind::MissingRequiredClaim(_)
                            | ErrorKind::InvalidClaimFormat(_)
                            | ErrorKind::Json(_)
                    );
                    last = TokenRejected(error.to_string());
                    if of_the_claims {
                        return Err(last);
                    }
                }
            }
        }
        Err(last)
    }
}

/// Whether a JWT's `typ` header names an access token (RFC 9068 §4: `at+jwt`, or with the
/// `application/` prefix RFC 7515 §4.1.9 lets it leave out; media types are case-insensitive).
fn is_access_token_type(typ: &str) -> bool {
    let typ = typ
        .get(.."application/".len())
        .filter(|prefix| prefix.eq_ignore_ascii_case("application/"))
        .map_or(typ, |_| &typ["application/".len()..]);
    typ.eq_ignore_ascii_case("at+jwt")
}

fn principal(claims: Claims) -> Principal {
    let mut scopes = BTreeSet::new();
    let words = |text: &str, scopes: &mut BTreeSet<String>| {
        scopes.extend(text.split(' ').filter(|s| !s.is_empty()).map(str::to_owned));
    };
    if let Some(scope) = &claims.scope {
        words(scope, &mut scopes);
    }
    match &claims.scp {
        Some(Scopes::List(list)) => {
            for scope in list {
                words(scope, &mut scopes);
            }
        }
        Some(Scopes::Text(text)) => words(text, &mut scopes),
        None => {}
    }
    let mut text: BTreeMap<String, String> = claims
        .other
        .into_iter()
        .filter_map(|(name, value)| match value {
            serde_json::Value::String(value) => Some((name, value)),
            serde_json::Value::Number(number) => Some((name, number.to_string())),
            _ => None,
        })
        .collect();
    text.insert("iss".to_owned(), claims.iss);
    Principal {
        subject: Some(claims.sub),
        scopes,
        claims: text,
    }
}
