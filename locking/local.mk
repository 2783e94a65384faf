# locking: sources are added here as the layer grows.
