//! Masks: what a sensitive value looks like once it leaves (`z***@example.com`,
//! `138****8000`, the last four digits of a card).
//!
//! **Layer:** provider (`mcp-resources-sql`). Pure functions over text; this module never sees
//! a database, a column rule or a URI. Masks count characters, not bytes, so a name in any
//! script is cut on character boundaries.

/// How a value is masked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaskStyle {
    /// Every character replaced: `****` (the length kept, up to 8 stars).
    Full,
    /// An email address: its local part's first character, `***`, then `@domain` (`z***@
    /// example.com`); a value without `@` is masked as [`MaskStyle::Full`].
    Email,
    /// A phone number: the first three and the last four characters kept, the rest starred
    /// (`138****8000`); a short one keeps only its last two.
    Phone,
    /// Only the last N characters kept.
    KeepLast(usize),
    /// The first and the last N characters kept (an ID number: `11**************34`).
    KeepEnds(usize),
}

/// `value` masked by `style`.
pub fn mask(value: &str, style: MaskStyle) -> String {
    let count = value.chars().count();
    let keep = |first: usize, last: usize| -> String {
        if first + last >= count {
            return "*".repeat(count.min(8));
        }
        let mut out = String::with_capacity(value.len());
        out.extend(value.chars().take(first));
        out.extend(std::iter::repeat_n('*', count - first - last));
        out.extend(value.chars().skip(count - last));
        out
    };
    match style {
        MaskStyle::Full => "*".repeat(count.clamp(1, 8)),
        MaskStyle::Email => match value.rsplit_once('@') {
            Some((local, domain)) if !local.is_empty() => {
                let first = local.chars().next().unwrap_or('*');
                format!("{first}***@{domain}")
            }
            _ => mask(value, MaskStyle::Full),
        },
        MaskStyle::Phone if count >= 9 => keep(3, 4),
        MaskStyle::Phone => keep(0, 2),
        MaskStyle::KeepLast(last) => keep(0, last),
        MaskStyle::KeepEnds(ends) => keep(ends, ends),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seeds_examples_and_near_misses() {
        assert_eq!(
            mask("zhang@example.com", MaskStyle::Email),
            "z***@example.com"
        );
        assert_eq!(mask("13800138000", MaskStyle::Phone), "138****8000");
        assert_eq!(
            mask("110101199003074534", MaskStyle::KeepEnds(2)),
            "11**************34"
        );
        assert_eq!(
            mask("4111111111111111", MaskStyle::KeepLast(4)),
            "************1111"
        );
        assert_eq!(mask("not-an-email", MaskStyle::Email), "********");
        assert_eq!(mask("@x", MaskStyle::Email), "**");
        assert_eq!(mask("12", MaskStyle::KeepEnds(2)), "**");
        assert_eq!(mask("", MaskStyle::Full), "*");
        assert_eq!(mask("张伟@例子.中国", MaskStyle::Email), "张***@例子.中国");
        assert_eq!(mask("12345", MaskStyle::Phone), "***45");
    }
}
