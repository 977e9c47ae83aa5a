/* The program example/taint/cgi_handler.graph models (not built): a CGI handler that puts two
 * request parameters into shell commands, one through a quoting function and one as is. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *parse_param(const char *query, const char *key);
char *shell_quote(const char *text);

int main(void) {
    char cmd1[512], cmd2[512];
    const char *q = getenv("QUERY_STRING");
    char *user = parse_param(q, "user");
    char *host = parse_param(q, "host");
    char *safe = shell_quote(user);
    snprintf(cmd1, sizeof cmd1, "finger %s", safe);
    FILE *f = popen(cmd1, "r");              /* quoted: not a finding */
    if (strlen(host) > 64)                   /* control dependence only */
        execl("/bin/false", "false", (char *)0);
    snprintf(cmd2, sizeof cmd2, "ping -c 1 %s", host);
    int rc = system(cmd2);                   /* host reaches the shell unquoted: command injection */
    printf("Content-Type: text/plain\r\n\r\n%d\n", rc);
    if (f) pclose(f);
    return 0;
}
