rule subprocess_shell { strings: $a = "shell=True" condition: $a }
rule os_system { strings: $a = "os.system(" condition: $a }
rule pickle_loads { strings: $a = "pickle.loads(" $b = "pickle.load(" condition: any of them }
rule eval_exec { strings: $a = "eval(" fullword $b = "exec(" fullword condition: #a + #b > 0 and any of them }
rule yaml_unsafe { strings: $a = "yaml.load(" $b = "Loader=yaml.Loader" condition: any of them }
rule http_urls { strings: $a = "http://" condition: #a > 5 }
rule tempfile_mktemp { strings: $a = "tempfile.mktemp(" condition: $a }
rule md5_use { strings: $a = "hashlib.md5(" $b = "MD5" nocase wide condition: any of them }
rule private_key { strings: $a = "-----BEGIN RSA PRIVATE KEY-----" $b = "-----BEGIN PRIVATE KEY-----" condition: any of them }
rule ctypes_cdll { strings: $a = "ctypes.CDLL(" $b = "ctypes.cdll" condition: any of them }
rule requests_verify_false { strings: $a = "verify=False" condition: $a }
rule marshal_loads { strings: $a = "marshal.loads(" condition: $a }
