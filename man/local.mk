# man/: manual pages installed by make install.
