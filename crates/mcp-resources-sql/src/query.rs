//! Named queries: a URI template and one parameterized `SELECT` from the configuration, such as
//! `orders://tenant/{tenant}/order/{id}` with `SELECT … WHERE tenant = ?1 AND id = ?2`; the
//! principal's subject or one of its claims can be a parameter, so that "only my tenant" is a
//! query, not a filter after the fact.
//!
//! **Layer:** provider (`mcp-resources-sql`). It turns a matched URI and a principal into bound
//! parameters, and checks each query once at start; the statements run through the `sqlite`
//! module, which makes them read-only whatever their text.
//!
//! At start every query is prepared: it must be exactly one statement (a stacked `…; DELETE …`
//! is refused by the prepare itself), pass the connection's authorizer (reads only: a write,
//! an ATTACH or a setting pragma does not even prepare), be read-only by SQLite's own judgement
//! (`sqlite3_stmt_readonly`), and take exactly as many parameters as it lists. A parameter is a
//! template variable (`id`, or `id:integer` / `id:real` to bind it as a number; a value that is
//! not one names nothing), `$subject` (the principal's subject; anonymous principals get
//! nothing) or `$claim:NAME` (a claim of the principal's token).

use mcp_resources_core::policy::Principal;
use mcp_resources_core::template::{UriTemplate, Variables};

use crate::model::Bind;

/// One named query as configured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedQuery {
    /// Its name: the template's name in `resources/templates/list`, and the table name its
    /// columns are matched under by column rules (`name.column`).
    pub name: String,
    /// The URI template (RFC 6570) of the resources it answers, any scheme.
    pub uri: String,
    /// One `SELECT`, its parameters written `?1`, `?2`, …
    pub sql: String,
    /// What each parameter is bound to, in order.
    pub params: Vec<String>,
    /// Whether it answers one row (a missing row is "not found") rather than a list.
    pub one_row: bool,
    /// Completion queries by variable: a `SELECT` of one column taking `?1`, the typed prefix
    /// (and `?2`, the principal's subject, when it takes two).
    pub complete: Vec<(String, String)>,
}

/// How a parameter is bound.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Param {
    Variable { name: String, kind: Kind },
    Subject,
    Claim(String),
}

/// The type a variable is bound as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Text,
    Integer,
    Real,
}

/// A named query ready to answer.
#[derive(Debug)]
pub(crate) struct Query {
    pub(crate) config: NamedQuery,
    pub(crate) template: UriTemplate,
    pub(crate) params: Vec<Param>,
    /// For each completion query, in order, whether it takes the subject as its second
    /// parameter (found when it is checked).
    pub(crate) completion_takes_subject: Vec<bool>,
}

impl Query {
    /// The query of `config`, its template and parameters parsed (the SQL is checked when the
    /// database is open).
    pub(crate) fn new(config: NamedQuery) -> Result<Query, String> {
        let template = UriTemplate::parse(&config.uri)
            .map_err(|error| format!("query {:?}: uri template: {error}", config.name))?;
        let names: Vec<&str> = template.variable_names().collect();
        let params = config
            .params
            .iter()
            .map(|spec| Param::parse(spec, &names))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|reason| format!("query {:?}: {reason}", config.name))?;
        for (variable, _) in &config.complete {
            if !names.contains(&variable.as_str()) {
                return Err(format!(
                    "query {:?}: completes {variable:?}, which its template does not have",
                    config.name
                ));
            }
        }
        Ok(Query {
            config,
            template,
            params,
            completion_takes_subject: Vec::new(),
        })
    }

    /// The values to bind for `variables` and `principal`, `None` when one cannot be had (a
    /// missing or mistyped variable, an anonymous principal for `$subject`, a missing claim).
    pub(crate) fn bind(&self, variables: &Variables, principal: &Principal) -> Option<Vec<Bind>> {
        self.params
            .iter()
            .map(|param| match param {
                Param::Subject => principal.subject.clone().map(Bind::Text),
                Param::Claim(name) => principal.claims.get(name).cloned().map(Bind::Text),
                Param::Variable { name, kind } => {
                    let text = variables.get_str(name)?;
                    match kind {
                        Kind::Text => Some(Bind::Text(text.to_owned())),
                        Kind::Integer => text.parse::<i64>().ok().map(Bind::Integer),
                        Kind::Real => text
                            .parse::<f64>()
                            .ok()
                            .filter(|value| value.is_finite())
                            .map(Bind::Real),
                    }
                }
            })
            .collect()
    }
}

impl Param {
    fn parse(spec: &str, names: &[&str]) -> Result<Param, String> {
        if spec == "$subject" {
            return Ok(Param::Subject);
        }
        if let Some(claim) = spec.strip_prefix("$claim:") {
            return Ok(Param::Claim(claim.to_owned()));
        }
        let (name, kind) = match spec.split_once(':') {
            None => (spec, Kind::Text),
            Some((name, "integer")) => (name, Kind::Integer),
            Some((name, "real")) => (name, Kind::Real),
            Some((name, "text")) => (name, Kind::Text),
            Some((_, other)) => {
                return Err(format!(
                    "parameter {spec:?}: type {other:?} is not text, integer or real"
                ));
            }
        };
        if !names.contains(&name) {
            return Err(format!(
                "parameter {spec:?} is no variable of its template, $subject or $claim:NAME"
            ));
        }
        Ok(Param::Variable {
            name: name.to_owned(),
            kind,
        })
    }
}
