package main

import (
	"net"
	"net/url"
	"strings"

	"github.com/keel-go/keel/config"
)

// mastraStudioPort is where Mastra Studio listens unless told otherwise.
const mastraStudioPort = "3000"

// mastraStudioLine is what keel serve says of Mastra Studio: the command
// that starts Studio against this server, on the port of an allowed
// origin of this machine (Studio calls the server from the browser, so
// its origin must be allowed), or what to allow first when none is.
func mastraStudioLine(addr string, origins []string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return ""
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "localhost"
	}
	cmd := "npx mastra studio --server-host " + host + " --server-port " + port
	studio := ""
	for _, o := range origins {
		if o == "*" {
			studio = mastraStudioPort
			break
		}
		u, err := url.Parse(o)
		if err != nil || u.Scheme != "http" || u.Port() == "" {
			continue
		}
		if h := u.Hostname(); h == "localhost" || h == "127.0.0.1" {
			studio = u.Port()
			break
		}
	}
	if studio == "" {
		return "Mastra Studio: allow its origin (" + config.CORSOriginsEnv + "=http://localhost:" + mastraStudioPort + "), then run " + cmd
	}
	if studio != mastraStudioPort {
		cmd = strings.Replace(cmd, "studio ", "studio --port "+studio+" ", 1)
	}
	return "Mastra Studio: " + cmd + " (then open http://localhost:" + studio + ")"
}
