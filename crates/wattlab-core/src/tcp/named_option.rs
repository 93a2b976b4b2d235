//! [`named_option!`]: the enum of a TCP option that scenarios spell by name.
//!
//! Every such option (`hystart`, `cubic`, `rto`, `ooo_limit`, `vegas_retransmit`, `profile`)
//! needs the same parts: the enum, `ALL`, a canonical `name`, a case-insensitive `from_name`
//! with optional aliases, and an error type whose message names the key and lists the known
//! names. The macro writes them once so the options cannot drift apart.

/// Declares a named option: the enum (Clone, Copy, Debug, Default, PartialEq, Eq, Hash), its
/// unknown-name error type, `ALL` (declaration order), `name` and `from_name`.
///
/// ```ignore
/// named_option! {
///     /// Doc of the enum.
///     pub enum RtoMode("rto") {
///         /// Doc of a value.
///         #[default]
///         Rfc6298 = "rfc6298",
///         Linux = "linux",
///     }
///     aliases { "rfc" => Rfc6298 }   // optional
///     /// Doc of the error.
///     error UnknownRto;
/// }
/// ```
macro_rules! named_option {
    (
        $(#[$meta:meta])*
        $vis:vis enum $Enum:ident ($key:literal) {
            $( $(#[$vmeta:meta])* $Variant:ident = $name:literal ),+ $(,)?
        }
        $( aliases { $( $alias:literal => $AliasOf:ident ),+ $(,)? } )?
        $(#[$emeta:meta])*
        error $Error:ident;
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        $vis enum $Enum {
            $( $(#[$vmeta])* $Variant ),+
        }

        $(#[$emeta])*
        #[derive(Clone, Debug, PartialEq, Eq)]
        $vis struct $Error(pub String);

        impl std::fmt::Display for $Error {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "unknown {} `{}` (known: ", $key, self.0)?;
                for (i, v) in $Enum::ALL.iter().enumerate() {
                    let sep = if i == 0 { "" } else { ", " };
                    write!(f, "{sep}{}", v.name())?;
                }
                write!(f, ")")
            }
        }

        impl std::error::Error for $Error {}

        impl $Enum {
            /// Every value, in declaration order (the default first).
            pub const ALL: [$Enum; [$($name),+].len()] = [$($Enum::$Variant),+];

            /// Canonical lower-case name, as in scenarios.
            pub const fn name(self) -> &'static str {
                match self {
                    $( $Enum::$Variant => $name ),+
                }
            }

            /// Parse a name or one of its aliases, case-insensitively, ignoring surrounding blanks.
            pub fn from_name(name: &str) -> Result<Self, $Error> {
                const ALIASES: &[(&str, $Enum)] = &[$( $( ($alias, $Enum::$AliasOf) ),+ )?];
                let n = name.trim();
                $Enum::ALL
                    .into_iter()
                    .map(|v| (v.name(), v))
                    .chain(ALIASES.iter().copied())
                    .find(|(s, _)| s.eq_ignore_ascii_case(n))
                    .map(|(_, v)| v)
                    .ok_or_else(|| $Error(name.to_string()))
            }
        }
    };
}

pub(crate) use named_option;

#[cfg(test)]
mod tests {
    named_option! {
        /// A test option.
        pub enum Colour("colour") {
            /// The default.
            #[default]
            Red = "red",
            Blue = "blue",
        }
        aliases { "navy" => Blue }
        /// Not a colour.
        error UnknownColour;
    }

    named_option! {
        /// An option without aliases.
        pub enum Bit("bit") {
            #[default]
            Off = "off",
            On = "on",
        }
        /// Not a bit.
        error UnknownBit;
    }

    #[test]
    fn names_aliases_default_and_error_message() {
        assert_eq!(Colour::ALL, [Colour::Red, Colour::Blue]);
        assert_eq!(Colour::default(), Colour::Red);
        for c in Colour::ALL {
            assert_eq!(Colour::from_name(&format!(" {} ", c.name().to_uppercase())), Ok(c));
        }
        assert_eq!(Colour::from_name("Navy"), Ok(Colour::Blue));
        assert_eq!(Colour::from_name("green").unwrap_err().to_string(), "unknown colour `green` (known: red, blue)");
        assert_eq!(Bit::from_name("ON"), Ok(Bit::On));
        assert_eq!(Bit::from_name("navy").unwrap_err(), UnknownBit("navy".into()));
    }
}
