import { DynamicModule, Global, Injectable, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { withTimeout, ReadinessCheck } from '@svc/http';
import { DataSource } from 'typeorm';
import { DatabaseSettings, dataSourceOptions } from './data-source';

@Injectable()
export class DatabaseReadinessCheck implements ReadinessCheck {
  readonly name = 'postgres';

  constructor(private readonly dataSource: DataSource) {}

  async check(): Promise<void> {
    await withTimeout(this.dataSource.query('SELECT 1'), 2000, 'PostgreSQL');
  }
}

@Global()
@Module({})
export class DatabaseModule {
  static forRoot(settings: DatabaseSettings): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRoot({
          ...dataSourceOptions(settings),
          retryAttempts: 5,
          retryDelay: 2000,
        }),
      ],
      providers: [DatabaseReadinessCheck],
      exports: [DatabaseReadinessCheck],
    };
  }
}
