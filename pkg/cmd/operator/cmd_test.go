package operator

import (
	"testing"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/utils/clock"

	"github.com/openshift/library-go/pkg/controller/controllercmd"

	versionpkg "github.com/llm-infra/llm-infra-operator/pkg/version"
)

func TestLeaderElectionFlagsSetTheLeaseTimings(t *testing.T) {
	tests := []struct {
		name                            string
		args                            []string
		wantLease, wantRenew, wantRetry time.Duration
	}{
		{name: "unset keeps zero, library-go's defaults"},
		{
			name:      "all three",
			args:      []string{"--leader-elect-lease-duration=10s", "--leader-elect-renew-deadline=7s", "--leader-elect-retry-period=2s"},
			wantLease: 10 * time.Second, wantRenew: 7 * time.Second, wantRetry: 2 * time.Second,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			config := controllercmd.NewControllerCommandConfig("test", versionpkg.Get(), nil, clock.RealClock{})
			flags := pflag.NewFlagSet("test", pflag.ContinueOnError)
			addLeaderElectionFlags(flags, config)
			if err := flags.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			if config.LeaseDuration.Duration != tt.wantLease || config.RenewDeadline.Duration != tt.wantRenew || config.RetryPeriod.Duration != tt.wantRetry {
				t.Errorf("lease %s, renew %s, retry %s; want %s, %s, %s", config.LeaseDuration.Duration, config.RenewDeadline.Duration,
					config.RetryPeriod.Duration, tt.wantLease, tt.wantRenew, tt.wantRetry)
			}
		})
	}
}
