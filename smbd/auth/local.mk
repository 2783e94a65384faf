# smbd/auth: sources are added here as the layer grows.
