// Rules for `vyre scan --yara` (the README's main job): a few things a review of third-party code
// looks for. Rules whose condition needs one of their literal strings are prefiltered on the
// device; the others (a regular expression, a header check) are evaluated by libyara on every file.

rule private_key_material
{
    meta:
        description = "a PEM private key"
    strings:
        $rsa = "-----BEGIN RSA PRIVATE KEY-----"
        $openssh = "-----BEGIN OPENSSH PRIVATE KEY-----"
        $pkcs8 = "-----BEGIN PRIVATE KEY-----"
        $ec = "-----BEGIN EC PRIVATE KEY-----"
    condition:
        any of them
}

rule shell_command_calls
{
    meta:
        description = "source that starts shell commands in two ways"
    strings:
        $system = "system(" fullword
        $popen = "popen("
        $exec = "execvp("
    condition:
        2 of them
}

rule unsafe_string_functions
{
    meta:
        description = "many calls of strcpy or sprintf"
    strings:
        $strcpy = "strcpy("
        $sprintf = "sprintf("
    condition:
        #strcpy + #sprintf > 20
}

rule aws_access_key_id
{
    meta:
        description = "something shaped like an AWS access key id (a regular expression: not prefiltered)"
    strings:
        $id = /AKIA[0-9A-Z]{16}/
    condition:
        $id
}

rule elf_binary
{
    meta:
        description = "an ELF file (a header check: not prefiltered)"
    condition:
        uint32(0) == 0x464C457F
}
