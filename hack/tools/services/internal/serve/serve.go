// Package serve runs the services' HTTP servers until SIGTERM or SIGINT.
package serve

import (
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// Until serves handler on ln until the process is told to stop, then closes; a serve error is
// fatal, named after the program.
func Until(program string, ln net.Listener, handler http.Handler) {
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
		<-sig
		_ = srv.Close()
	}()
	if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
		log.Fatalf("%s: %v", program, err)
	}
}
