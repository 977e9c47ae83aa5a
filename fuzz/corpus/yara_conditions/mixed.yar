
import "pe"
// literal strings: prefiltered
rule literal_text { strings: $a = "alpha_marker" condition: $a }
rule nocase_or_wide { meta: author = "vyre" strings: $a = "BETA_MARK" nocase $b = "gamma_mark" wide condition: any of them }
rule both_needed { strings: $a = "delta_mark" $b = "epsilon_mark" condition: $a and $b }
rule counted { strings: $a = "zeta_mark" condition: #a > 2 }
rule hex_literal { strings: $h = { 6B 61 70 70 61 5F 6D } condition: $h at 0 or $h in (1..100000) }
rule with_filesize { strings: $a = "alpha_marker" condition: $a and filesize > 100 }
/* conditions the scan cannot prefilter */
rule mz_header { condition: uint16(0) == 0x5A4D }
rule tiny { condition: filesize < 16 }
rule without_omega { strings: $a = "omega_mark" condition: not $a and filesize > 30000 }
rule either_or_size { strings: $a = "alpha_marker" condition: $a or filesize == 7 }
rule regex_string { strings: $r = /eta_mark[0-9]+/ condition: $r }
rule hex_wildcard { strings: $h = { 61 6C ?? 68 61 } condition: $h }
private rule private_alpha { strings: $a = "alpha_marker" condition: $a }
rule uses_private { condition: private_alpha and filesize > 0 }
