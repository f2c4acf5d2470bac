//! Bearer tokens on the HTTP endpoint: the server as an OAuth 2.1 resource server (MCP
//! specification, Basic › Authorization, in 2025-06-18, 2025-11-25 and 2026-07-28). Every request must carry `Authorization: Bearer <token>`; a token is accepted only
//! when it was issued for this server (its audience names [`Authorization::resource`]), by a
//! configured issuer, is unexpired and carries the required scopes. Its subject and scopes
//! become the request's [`Principal`], which the core's policy then judges. Clients discover
//! the authorization servers from the Protected Resource Metadata document (RFC 9728), linked
//! from every `401` and served at the well-known URIs.
//!
//! **Layer:** server, HTTP transport. It turns an `Authorization` header into a principal or
//! into a `401`/`403` answer, and writes the metadata document. It never knows the protocol
//! eras, sessions or what a principal may do with a resource (the policy decides that), and it
//! never fetches anything: keys are given (`JwtVerifier`, feature `auth`) or checked by the embedder's own
//! [`TokenVerifier`].
//!
//! Answers, as RFC 6750 has them:
//! - no `Authorization` header, or another scheme than `Bearer`: `401` with
//!   `WWW-Authenticate: Bearer resource_metadata="…"` (and `scope="…"` with the required
//!   scopes);
//! - a token that is not accepted: `401`, the same challenge with `error="invalid_token"`;
//! - a token without a required scope: `403` with `error="insufficient_scope"`;
//! - a malformed `Authorization` header (`Bearer` without a token): `400` with
//!   `error="invalid_request"`.
//!
//! Why a token was refused is logged at debug level and never told to the client.
//!
//! A JSON Web Token must carry a non-empty `sub`, `iss` (one string), `aud` and `exp`, and a
//! `typ` header, when it has one, of `at+jwt` or `application/at+jwt` (RFC 9068 §4, in any
//! case), so that an ID token or another JWT signed by the same issuer is not taken for an
//! access token. A legacy session is bound to
//! the `sub` and `iss` of the token that opened it and runs each request with the principal of
//! the token that came with it; a live stream (a legacy GET stream, a modern listen stream)
//! ends at the first keep-alive after its token's `exp` (for a GET stream, the latest token
//! its session was named with).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use mcp_resources_core::policy::Principal;

use super::reply::{self, Response};

#[cfg(feature = "auth")]
mod jwt;
mod verify;

#[cfg(feature = "auth")]
pub use self::jwt::JwtVerifier;
pub use self::verify::{AuthorizationError, TokenRejected, TokenVerifier};

/// The well-known path of the Protected Resource Metadata document (RFC 9728 §3).
const METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// Bearer-token authorization of the HTTP endpoint; see the [module documentation](self).
/// Set it in [`HttpOptions::authorization`](super::HttpOptions::authorization).
#[derive(Clone, Debug)]
pub struct Authorization {
    resource: String,
    authorization_servers: Vec<String>,
    scopes_supported: Vec<String>,
    required_scopes: Vec<String>,
    /// Broader scopes and the narrower ones each stands for.
    implied_scopes: BTreeMap<String, Vec<String>>,
    verifier: Arc<dyn TokenVerifier>,
    /// The metadata document's absolute URL (path-inserted, RFC 9728 §3.1).
    metadata_url: String,
    /// Its path on this server, for the resource's own path (`None` when that is `/`).
    metadata_path: Option<String>,
    /// The `WWW-Authenticate` values of its refusals.
    challenges: Challenges,
}

#[derive(Clone, Debug)]
struct Challenges {
    missing: HeaderValue,
    invalid_token: HeaderValue,
    insufficient_scope: HeaderValue,
    invalid_request: HeaderValue,
}

impl PartialEq for Authorization {
    fn eq(&self, other: &Authorization) -> bool {
        self.resource == other.resource
            && self.authorization_servers == other.authorization_servers
            && self.scopes_supported == other.scopes_supported
            && self.required_scopes == other.required_scopes
            && self.implied_scopes == other.implied_scopes
            && Arc::ptr_eq(&self.verifier, &other.verifier)
    }
}

impl Eq for Authorization {}

impl Authorization {
    /// Authorization for the MCP server whose canonical URI is `resource` (what clients name
    /// as the `resource` of their token requests, for example `https://mcp.example.com/mcp`),
    /// with tokens from `authorization_servers` (their issuer URLs, listed in the metadata
    /// document) checked by `verifier`.
    ///
    /// # Errors
    ///
    /// When `resource` is not an absolute `http`/`https` URI without query or fragment, or no
    /// authorization server is given.
    pub fn new(
        resource: impl Into<String>,
        authorization_servers: Vec<String>,
        verifier: Arc<dyn TokenVerifier>,
    ) -> Result<Authorization, AuthorizationError> {
        let resource = resource.into();
        if authorization_servers.is_empty() {
            return Err(AuthorizationError::NoAuthorizationServer);
        }
        let bad = || AuthorizationError::Resource(resource.clone());
        if resource.contains('#') {
            return Err(bad());
        }
        let uri: Uri = resource.parse().map_err(|_| bad())?;
        let scheme = uri.scheme_str().ok_or_else(bad)?;
        if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
            return Err(bad());
        }
        let authority = uri.authority().ok_or_else(bad)?;
        if uri.query().is_some() || resource.contains('"') || resource.contains('\\') {
            return Err(bad());
        }
        let path = uri.path().trim_end_matches('/');
        let metadata_path = (!path.is_empty()).then(|| format!("{METADATA_PATH}{path}"));
        let metadata_url = format!(
            "{scheme}://{authority}{}",
            metadata_path.as_deref().unwrap_or(METADATA_PATH)
        );
        let mut authorization = Authorization {
            resource,
            authorization_servers,
            scopes_supported: Vec::new(),
            required_scopes: Vec::new(),
            implied_scopes: BTreeMap::new(),
            verifier,
            metadata_url,
            metadata_path,
            challenges: Challenges {
                missing: HeaderValue::from_static("Bearer"),
                invalid_token: HeaderValue::from_static("Bearer"),
                insufficient_scope: HeaderValue::from_static("Bearer"),
                invalid_request: HeaderValue::from_static("Bearer"),
            },
        };
        authorization.challenges = authorization.make_challenges()?;
        Ok(authorization)
    }

    /// Sets the scopes listed as `scopes_supported` in the metadata document.
    ///
    /// # Errors
    ///
    /// When a scope is not a valid OAuth scope token.
    pub fn scopes_supported(
        mut self,
        scopes: Vec<String>,
    ) -> Result<Authorization, AuthorizationError> {
        check_scopes(&scopes)?;
        self.scopes_supported = scopes;
        Ok(self)
    }

    /// Sets the scopes every request's token must carry (all of them); they are named in every
    /// challenge. A token's scope stands for itself and for the scopes
    /// [`Authorization::implied_scopes`] says it implies.
    ///
    /// # Errors
    ///
    /// When a scope is not a valid OAuth scope token.
    pub fn required_scopes(
        mut self,
        scopes: Vec<String>,
    ) -> Result<Authorization, AuthorizationError> {
        check_scopes(&scopes)?;
        self.required_scopes = scopes;
        self.challenges = self.make_challenges()?;
        Ok(self)
    }

    /// Sets the scope hierarchy: each scope of `implied` stands for the scopes it lists too
    /// (and for those they list in turn), for example `files:admin` for `files:read` and
    /// `files:write`. A token's principal holds every scope its own imply, so required scopes
    /// and grants to a scope are met by a broader one.
    ///
    /// # Errors
    ///
    /// When a scope is not a valid OAuth scope token.
    pub fn implied_scopes(
        mut self,
        implied: BTreeMap<String, Vec<String>>,
    ) -> Result<Authorization, AuthorizationError> {
        for (broader, narrower) in &implied {
            check_scopes(std::slice::from_ref(broader))?;
            check_scopes(narrower)?;
        }
        self.implied_scopes = implied;
        Ok(self)
    }

    /// `scopes` with every scope they imply, transitively.
    fn with_implied(&self, scopes: &mut BTreeSet<String>) {
        let mut pending: Vec<String> = scopes.iter().cloned().collect();
        while let Some(scope) = pending.pop() {
            for narrower in self.implied_scopes.get(&scope).into_iter().flatten() {
                if scopes.insert(narrower.clone()) {
                    pending.push(narrower.clone());
                }
            }
        }
    }

    /// The canonical URI of this server: the audience its tokens must name.
    pub fn resource(&self) -> &str {
        &self.resource
    }

    /// The absolute URL of the metadata document, as the challenges name it.
    pub fn metadata_url(&self) -> &str {
        &self.metadata_url
    }

    fn make_challenges(&self) -> Result<Challenges, AuthorizationError> {
        let scope = if self.required_scopes.is_empty() {
            String::new()
        } else {
            format!(", scope=\"{}\"", self.required_scopes.join(" "))
        };
        let metadata = format!("resource_metadata=\"{}\"", self.metadata_url);
        let value = |error: &str| {
            HeaderValue::try_from(format!("Bearer {error}{metadata}{scope}"))
                .map_err(|_| AuthorizationError::Resource(self.resource.clone()))
        };
        Ok(Challenges {
            missing: value("")?,
            invalid_token: value("error=\"invalid_token\", ")?,
            insufficient_scope: value("error=\"insufficient_scope\", ")?,
            invalid_request: value("error=\"invalid_request\", ")?,
        })
    }

    /// The paths where the metadata document is served, each once: the root well-known URI,
    /// the one of the resource's path, and the one of the endpoint's `endpoint_path` (which
    /// differs from the resource's behind a proxy that rewrites paths).
    pub(crate) fn metadata_paths(&self, endpoint_path: &str) -> Vec<String> {
        let mut paths = vec![METADATA_PATH.to_owned()];
        paths.extend(self.metadata_path.clone());
        let endpoint = endpoint_path.trim_end_matches('/');
        if !endpoint.is_empty() {
            paths.push(format!("{METADATA_PATH}{endpoint}"));
        }
        paths.sort_unstable();
        paths.dedup();
        paths
    }

    /// The metadata document (RFC 9728 §2).
    pub(crate) fn metadata(&self) -> Response {
        let mut document = serde_json::json!({
            "resource": self.resource,
            "authorization_servers": self.authorization_servers,
            "bearer_methods_supported": ["header"],
        });
        if !self.scopes_supported.is_empty() {
            document["scopes_supported"] = serde_json::json!(self.scopes_supported);
        }
        let bytes = serde_json::to_vec(&document).unwrap_or_default();
        reply::json(StatusCode::OK, bytes)
    }

    /// The principal of a request with these headers, or why it is refused.
    pub(crate) fn check(&self, headers: &HeaderMap) -> Result<Principal, Refused> {
        let mut values = headers.get_all(header::AUTHORIZATION).iter();
        let Some(value) = values.next() else {
            return Err(self.refuse(StatusCode::UNAUTHORIZED, &self.challenges.missing));
        };
        if values.next().is_some() {
            return Err(self.refuse(StatusCode::BAD_REQUEST, &self.challenges.invalid_request));
        }
        let token = match bearer_token(value.as_bytes()) {
            Bearer::Token(token) => token,
            Bearer::OtherScheme => {
                return Err(self.refuse(StatusCode::UNAUTHORIZED, &self.challenges.missing));
            }
            Bearer::Malformed => {
                return Err(self.refuse(StatusCode::BAD_REQUEST, &self.challenges.invalid_request));
            }
        };
        let mut principal = match self.verifier.verify(token) {
            Ok(principal) => principal,
            Err(rejected) => {
                tracing::debug!(%rejected, "bearer token refused");
                return Err(self.refuse(StatusCode::UNAUTHORIZED, &self.challenges.invalid_token));
            }
        };
        self.with_implied(&mut principal.scopes);
        if let Some(missing) = self
            .required_scopes
            .iter()
            .find(|scope| !principal.scopes.contains(*scope))
        {
            tracing::debug!(scope = %missing, subject = ?principal.subject, "token without a required scope");
            return Err(self.refuse(StatusCode::FORBIDDEN, &self.challenges.insufficient_scope));
        }
        Ok(principal)
    }

    fn refuse(&self, status: StatusCode, challenge: &HeaderValue) -> Refused {
        Refused {
            status,
            challenge: challenge.clone(),
        }
    }
}

/// A request refused by [`Authorization::check`]: its status and challenge.
#[derive(Debug)]
pub(crate) struct Refused {
    status: StatusCode,
    challenge: HeaderValue,
}

impl Refused {
    /// The answer: the status with its `WWW-Authenticate` challenge and no body.
    pub(crate) fn response(self) -> Response {
        let mut response = reply::status(self.status);
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, self.challenge);
        response
    }
}

/// Whether the token `principal` came with has expired: its `exp` claim (seconds since the
/// epoch, kept as text) has passed. A principal without one never expires. Live streams look
/// at each keep-alive and end once it has, so that no stream outlives its token by more than a
/// keep-alive period.
pub(crate) fn expired(principal: &Principal) -> bool {
    let Some(exp) = principal.claims.get("exp") else {
        return false;
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_secs());
    // A fractional `exp` counts from its whole seconds; an unreadable one has expired.
    let whole = exp.split('.').next().unwrap_or(exp);
    whole.parse::<u64>().map_or(true, |exp| exp <= now)
}

/// Whether `scope` is an RFC 6749 §3.3 scope token: printable ASCII without space, `"` and
/// `\`, at least one character.
pub fn is_scope(scope: &str) -> bool {
    !scope.is_empty()
        && scope
            .bytes()
            .all(|byte| matches!(byte, 0x21 | 0x23..=0x5b | 0x5d..=0x7e))
}

fn check_scopes(scopes: &[String]) -> Result<(), AuthorizationError> {
    match scopes.iter().find(|scope| !is_scope(scope)) {
        Some(bad) => Err(AuthorizationError::Scope(bad.clone())),
        None => Ok(()),
    }
}

enum Bearer<'a> {
    Token(&'a str),
    OtherScheme,
    Malformed,
}

/// The token of an `Authorization: Bearer <token>` value (RFC 6750 §2.1: the scheme is
/// case-insensitive; the token is `b64token` characters).
fn bearer_token(value: &[u8]) -> Bearer<'_> {
    let Ok(value) = std::str::from_utf8(value) else {
        return Bearer::Malformed;
    };
    let (scheme, rest) = value.split_once(' ').unwrap_or((value, ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Bearer::OtherScheme;
    }
    let token = rest.trim_matches(' ');
    let is_b64token = |byte: u8| {
        byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~' | b'+' | b'/')
    };
    let body = token.trim_end_matches('=');
    if body.is_empty() || !body.bytes().all(is_b64token) {
        return Bearer::Malformed;
    }
    Bearer::Token(token)
}

#[cfg(all(test, feature = "auth"))]
mod tests {
    use super::*;
    use jsonwebtoken::{Algorithm, EncodingKey, Header};

    const AUDIENCE: &str = "https://mcp.example.com/mcp";
    const ISSUER: &str = "https://auth.example.com";
    const SECRET: &[u8] = b"a secret shared with the authorization server";

    fn now() -> u64 {
        jsonwebtoken::get_current_timestamp()
    }

    /// The header of an access token (RFC 9068) signed with `algorithm`.
    fn header(algorithm: Algorithm) -> Header {
        Header {
            typ: Some("at+jwt".to_owned()),
            ..Header::new(algorithm)
        }
    }

    fn token(claims: serde_json::Value, secret: &[u8]) -> String {
        jsonwebtoken::encode(
            &header(Algorithm::HS256),
            &claims,
            &EncodingKey::from_secret(secret).unwrap(),
        )
        .unwrap()
    }

    fn good_claims() -> serde_json::Value {
        serde_json::json!({
            "sub": "alice", "aud": AUDIENCE, "iss": ISSUER, "exp": now() + 600,
            "scope": "files:read  extra", "client_id": "cli", "n": 3
        })
    }

    fn verifier() -> JwtVerifier {
        JwtVerifier::new(AUDIENCE, vec![ISSUER.to_owned()])
            .with_hmac_secret(SECRET)
            .unwrap()
    }

    #[test]
    fn a_valid_token_gives_its_principal() {
        let principal = verifier().verify(&token(good_claims(), SECRET)).unwrap();
        assert_eq!(principal.subject.as_deref(), Some("alice"));
        let scopes: Vec<&str> = principal.scopes.iter().map(String::as_str).collect();
        assert_eq!(scopes, ["extra", "files:read"]);
        assert_eq!(
            principal.claims.get("client_id").map(String::as_str),
            Some("cli")
        );
        assert_eq!(principal.claims.get("n").map(String::as_str), Some("3"));
        assert_eq!(
            principal.claims.get("iss").map(String::as_str),
            Some(ISSUER)
        );
        assert!(principal.claims.contains_key("exp"));
        // `scp` as a list, and the audience as one of several.
        let mut claims = good_claims();
        claims["scope"] = serde_json::Value::Null;
        claims["scp"] = serde_json::json!(["a", "b c", ""]);
        claims["aud"] = serde_json::json!(["https://other.example.com", AUDIENCE]);
        let principal = verifier().verify(&token(claims, SECRET)).unwrap();
        assert_eq!(principal.scopes.len(), 3);
    }

    #[test]
    fn a_principal_expires_with_its_token() {
        let with_exp = |exp: &str| Principal::subject("alice").with_claim("exp", exp);
        assert!(!expired(&Principal::subject("alice")));
        assert!(!expired(&with_exp(&(now() + 600).to_string())));
        assert!(expired(&with_exp(&(now() - 1).to_string())));
        assert!(expired(&with_exp("soon")));
        assert!(!expired(&with_exp(&format!("{}.5", now() + 600))));
    }

    #[test]
    fn tokens_for_others_or_expired_or_forged_are_refused() {
        let refused = |claims: serde_json::Value, secret: &[u8]| {
            verifier().verify(&token(claims, secret)).is_err()
        };
        let with = |name: &str, value: serde_json::Value| {
            let mut claims = good_claims();
            claims[name] = value;
            claims
        };
        assert!(refused(
            with("aud", serde_json::json!("https://other.example.com/mcp")),
            SECRET
        ));
        assert!(refused(
            with("iss", serde_json::json!("https://evil.example.com")),
            SECRET
        ));
        assert!(refused(
            with("exp", serde_json::json!(now() - 3600)),
            SECRET
        ));
        assert!(refused(
            with("nbf", serde_json::json!(now() + 3600)),
            SECRET
        ));
        assert!(refused(good_claims(), b"another secret"));
        let mut no_audience = good_claims();
        no_audience.as_object_mut().unwrap().remove("aud");
        assert!(refused(no_audience, SECRET));
        for required in ["exp", "sub", "iss"] {
            let mut without = good_claims();
            without.as_object_mut().unwrap().remove(required);
            assert!(refused(without, SECRET), "without {required}");
        }
        // An issuer list holding the configured one is not an issuer.
        let issuers = serde_json::json!([ISSUER, "https://evil.example.com"]);
        assert!(refused(with("iss", issuers), SECRET));
        // An unsigned token (`alg: none`) and garbage.
        let unsigned = format!(
            "{}.{}.",
            base64_url(br#"{"alg":"none","typ":"JWT"}"#),
            base64_url(good_claims().to_string().as_bytes())
        );
        assert!(verifier().verify(&unsigned).is_err());
        assert!(verifier().verify("not.a.token").is_err());
        // No key at all.
        let keyless = JwtVerifier::new(AUDIENCE, vec![ISSUER.to_owned()]);
        assert!(keyless.verify(&token(good_claims(), SECRET)).is_err());
    }

    #[test]
    fn only_access_tokens_are_taken_by_their_typ() {
        let with_typ = |typ: Option<&str>| {
            let header = Header {
                typ: typ.map(str::to_owned),
                ..Header::new(Algorithm::HS256)
            };
            let key = EncodingKey::from_secret(SECRET).unwrap();
            verifier().verify(&jsonwebtoken::encode(&header, &good_claims(), &key).unwrap())
        };
        for typ in [
            None,
            Some("at+jwt"),
            Some("AT+JWT"),
            Some("application/at+jwt"),
            Some("Application/At+JWT"),
        ] {
            assert!(with_typ(typ).is_ok(), "typ {typ:?}");
        }
        // An ID token, a plain JWT and anything else are not access tokens.
        for typ in [
            "JWT",
            "jwt",
            "application/jwt",
            "id_token+jwt",
            "at+jwt ",
            "application/",
            "application/application/at+jwt",
            "",
        ] {
            let refused = with_typ(Some(typ)).unwrap_err();
            assert!(refused.0.contains("typ"), "typ {typ:?}: {refused}");
        }
    }

    #[test]
    fn an_empty_subject_is_refused() {
        let mut claims = good_claims();
        claims["sub"] = serde_json::json!("");
        let refused = verifier().verify(&token(claims, SECRET)).unwrap_err();
        assert!(refused.0.contains("sub"), "{refused}");
        // Through the endpoint's check too: a 401 with invalid_token.
        let mut claims = good_claims();
        claims["sub"] = serde_json::json!("");
        let bearer = format!("Bearer {}", token(claims, SECRET));
        let refused = authorization().check(&headers(&bearer)).unwrap_err();
        assert_eq!(refused.status, StatusCode::UNAUTHORIZED);
        assert!(challenge(&refused).contains(r#"error="invalid_token""#));
    }

    fn base64_url(bytes: &[u8]) -> String {
        use base64::Engine;
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    }

    #[test]
    fn keys_from_a_key_set() {
        let secret = base64_url(SECRET);
        let jwks =
            format!(r#"{{"keys":[{{"kty":"oct","kid":"one","alg":"HS256","k":"{secret}"}}]}}"#);
        let verifier = JwtVerifier::new(AUDIENCE, vec![ISSUER.to_owned()])
            .with_jwks(&jwks)
            .unwrap();
        assert_eq!(verifier.key_count(), 1);
        let signed = |kid: &str| {
            let header = Header {
                kid: Some(kid.to_owned()),
                ..header(Algorithm::HS256)
            };
            jsonwebtoken::encode(
                &header,
                &good_claims(),
                &EncodingKey::from_secret(SECRET).unwrap(),
            )
            .unwrap()
        };
        assert!(verifier.verify(&signed("one")).is_ok());
        assert!(verifier.verify(&signed("two")).is_err(), "an unknown kid");
        let hs384 = jsonwebtoken::encode(
            &header(Algorithm::HS384),
            &good_claims(),
            &EncodingKey::from_secret(SECRET).unwrap(),
        )
        .unwrap();
        assert!(
            verifier.verify(&hs384).is_err(),
            "the key is for HS256 only"
        );
        assert!(JwtVerifier::new(AUDIENCE, vec![]).with_jwks("{}").is_err());
        let short = r#"{"keys":[{"kty":"oct","k":"c2hvcnQ"}]}"#;
        assert!(JwtVerifier::new(AUDIENCE, vec![]).with_jwks(short).is_err());
        assert!(
            JwtVerifier::new(AUDIENCE, vec![])
                .with_hmac_secret(b"short")
                .is_err()
        );
        assert!(
            JwtVerifier::new(AUDIENCE, vec![])
                .with_jwks(r#"{"keys":[]}"#)
                .is_err()
        );
    }

    /// A P-256 key made for this test (PKCS#8 DER, base64) and its public half as a JWK.
    const EC_PRIVATE_DER: &str = "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgoVcQjkgWmg4ForCmWQXjGcHENEiLZ1zRWJ9leq5G2pGhRANCAAQ6ypsIegWTYWPOi4w7toTR7FFFDPqNKtrXZzacFKYQR9BvrtA4S1Wq5ovIHlT5BGgrqsR3VWVcf4oJzNfajWWe";
    const EC_PUBLIC_JWK: &str = r#"{"kty":"EC","crv":"P-256","kid":"ec-1","x":"OsqbCHoFk2FjzouMO7aE0exRRQz6jSra12c2nBSmEEc","y":"0G-u0DhLVarmi8geVPkEaCuqxHdVZVx_ignM19qNZZ4"}"#;

    #[test]
    fn an_elliptic_curve_key_from_a_key_set() {
        use base64::Engine;
        let der = base64::engine::general_purpose::STANDARD
            .decode(EC_PRIVATE_DER)
            .unwrap();
        let signing = EncodingKey::from_ec_der(&der);
        let verifier = JwtVerifier::new(AUDIENCE, vec![ISSUER.to_owned()])
            .with_jwks(&format!(r#"{{"keys":[{EC_PUBLIC_JWK}]}}"#))
            .unwrap();
        let mut es256 = header(Algorithm::ES256);
        es256.kid = Some("ec-1".to_owned());
        let signed = jsonwebtoken::encode(&es256, &good_claims(), &signing).unwrap();
        let principal = verifier.verify(&signed).unwrap();
        assert_eq!(principal.subject.as_deref(), Some("alice"));
        // Algorithm confusion: HS256 keyed with the public key's own bytes (the point, as a
        // verifier that took the key for an HMAC secret would use it), with and without a kid.
        let public: serde_json::Value = serde_json::from_str(EC_PUBLIC_JWK).unwrap();
        let coordinate = |name: &str| {
            base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(public[name].as_str().unwrap())
                .unwrap()
        };
        let mut point = vec![4_u8];
        point.extend(coordinate("x"));
        point.extend(coordinate("y"));
        for kid in [None, Some("ec-1".to_owned())] {
            let header = Header {
                kid,
                ..header(Algorithm::HS256)
            };
            let key = EncodingKey::from_secret(&point).unwrap();
            let confused = jsonwebtoken::encode(&header, &good_claims(), &key).unwrap();
            assert!(verifier.verify(&confused).is_err());
        }
        // A key set that claims an algorithm of another key type is refused; encryption keys
        // are left out.
        let with_member = |member: &str| {
            let jwk =
                EC_PUBLIC_JWK.replace(r#""kid":"ec-1""#, &format!(r#""kid":"ec-1",{member}"#));
            JwtVerifier::new(AUDIENCE, vec![]).with_jwks(&format!(r#"{{"keys":[{jwk}]}}"#))
        };
        assert!(with_member(r#""alg":"ES256""#).is_ok());
        assert!(with_member(r#""alg":"HS256""#).is_err());
        assert!(with_member(r#""use":"enc""#).is_err());
        assert!(with_member(r#""use":"sig""#).is_ok());
        // A signature by another key.
        let mut tampered = signed.clone();
        tampered.truncate(tampered.len() - 4);
        tampered.push_str("AAAA");
        assert!(verifier.verify(&tampered).is_err());
    }

    fn authorization() -> Authorization {
        Authorization::new(AUDIENCE, vec![ISSUER.to_owned()], Arc::new(verifier()))
            .unwrap()
            .required_scopes(vec!["files:read".to_owned()])
            .unwrap()
    }

    fn headers(authorization: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::AUTHORIZATION, authorization.parse().unwrap());
        headers
    }

    fn challenge(refused: &Refused) -> &str {
        refused.challenge.to_str().unwrap()
    }

    #[test]
    fn requests_are_answered_as_rfc_6750_has_it() {
        let authorization = authorization();
        assert_eq!(
            authorization.metadata_url(),
            "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
        );
        let missing = authorization.check(&HeaderMap::new()).unwrap_err();
        assert_eq!(missing.status, StatusCode::UNAUTHORIZED);
        assert_eq!(
            challenge(&missing),
            "Bearer resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource/mcp\", scope=\"files:read\""
        );
        let mut twice = headers("Bearer abc");
        twice.append(header::AUTHORIZATION, "Bearer def".parse().unwrap());
        let twice = authorization.check(&twice).err().unwrap();
        assert_eq!(twice.status, StatusCode::BAD_REQUEST);
        let basic = authorization
            .check(&headers("Basic YWxpY2U6cHc="))
            .err()
            .unwrap();
        assert_eq!(basic.status, StatusCode::UNAUTHORIZED);
        let malformed = authorization.check(&headers("Bearer")).unwrap_err();
        assert_eq!(malformed.status, StatusCode::BAD_REQUEST);
        assert!(challenge(&malformed).starts_with("Bearer error=\"invalid_request\""));
        let forged = token(good_claims(), b"another secret");
        let invalid = authorization
            .check(&headers(&format!("Bearer {forged}")))
            .err()
            .unwrap();
        assert_eq!(invalid.status, StatusCode::UNAUTHORIZED);
        assert!(
            challenge(&invalid).starts_with("Bearer error=\"invalid_token\", resource_metadata=")
        );
        let mut claims = good_claims();
        claims["scope"] = serde_json::json!("files:write");
        let narrow = token(claims, SECRET);
        let forbidden = authorization
            .check(&headers(&format!("bearer {narrow}")))
            .err()
            .unwrap();
        assert_eq!(forbidden.status, StatusCode::FORBIDDEN);
        assert!(challenge(&forbidden).contains("error=\"insufficient_scope\""));
        let good = token(good_claims(), SECRET);
        let principal = authorization
            .check(&headers(&format!("Bearer {good}")))
            .ok()
            .unwrap();
        assert_eq!(principal.subject.as_deref(), Some("alice"));
    }

    #[test]
    fn a_broader_scope_stands_for_the_narrower_ones() {
        let implied = BTreeMap::from([
            ("files:admin".to_owned(), vec!["files:write".to_owned()]),
            ("files:write".to_owned(), vec!["files:read".to_owned()]),
        ]);
        let authorization = authorization().implied_scopes(implied).unwrap();
        let mut claims = good_claims();
        claims["scope"] = serde_json::json!("files:admin");
        let admin = token(claims, SECRET);
        let principal = authorization
            .check(&headers(&format!("Bearer {admin}")))
            .unwrap();
        let scopes: Vec<&str> = principal.scopes.iter().map(String::as_str).collect();
        assert_eq!(scopes, ["files:admin", "files:read", "files:write"]);
        // Not the other way round.
        let mut claims = good_claims();
        claims["scope"] = serde_json::json!("files:write");
        let principal = authorization
            .check(&headers(&format!("Bearer {}", token(claims, SECRET))))
            .unwrap();
        assert!(!principal.scopes.contains("files:admin"));
        let bad = BTreeMap::from([("a b".to_owned(), vec![])]);
        assert!(authorization.implied_scopes(bad).is_err());
    }

    #[test]
    fn the_metadata_document_and_where_it_is_served() {
        let authorization = authorization()
            .scopes_supported(vec!["files:read".to_owned()])
            .unwrap();
        for (path, served) in [
            ("/.well-known/oauth-protected-resource", true),
            ("/.well-known/oauth-protected-resource/mcp", true),
            ("/.well-known/oauth-protected-resource/api", true),
            ("/.well-known/oauth-protected-resource/other", false),
            ("/mcp", false),
        ] {
            assert_eq!(
                authorization
                    .metadata_paths("/api")
                    .iter()
                    .any(|served| served == path),
                served,
                "{path}"
            );
        }
        let response = authorization.metadata();
        assert_eq!(response.status(), StatusCode::OK);
    }

    #[test]
    fn bad_configurations_are_refused() {
        let verifier: Arc<dyn TokenVerifier> = Arc::new(verifier());
        for resource in [
            "mcp.example.com/mcp",
            "ftp://mcp.example.com/mcp",
            "https://mcp.example.com/mcp?x=1",
            "https://mcp.example.com/mcp#top",
            "/mcp",
        ] {
            let made = Authorization::new(resource, vec![ISSUER.to_owned()], Arc::clone(&verifier));
            assert!(made.is_err(), "{resource}");
        }
        assert_eq!(
            Authorization::new(AUDIENCE, vec![], Arc::clone(&verifier)).unwrap_err(),
            AuthorizationError::NoAuthorizationServer
        );
        let root = Authorization::new("https://mcp.example.com", vec![ISSUER.to_owned()], verifier)
            .unwrap();
        assert_eq!(
            root.metadata_url(),
            "https://mcp.example.com/.well-known/oauth-protected-resource"
        );
        for scope in ["", "two words", "quote\"d"] {
            assert!(
                root.clone()
                    .required_scopes(vec![scope.to_owned()])
                    .is_err(),
                "{scope:?}"
            );
        }
    }
}
