package operator

import "testing"

func TestImagesFromEnv(t *testing.T) {
	tests := []struct {
		name    string
		value   string
		wantErr bool
	}{
		{name: "unset refuses to start", value: "", wantErr: true},
		{name: "set", value: "registry.example.com/lws:v0.8.0", wantErr: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(OperandImageEnv, tt.value)
			images, err := ImagesFromEnv()
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if !tt.wantErr && images.LWS != tt.value {
				t.Errorf("LWS image = %q, want %q", images.LWS, tt.value)
			}
		})
	}
}
